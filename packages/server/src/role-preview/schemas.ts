import { z } from 'zod';

/** Body of `POST /api/policy/preview`. */
export const previewBody = z
  .object({
    patterns: z.array(z.string().max(1000)).max(1000).meta({
      description: 'Tool-path patterns as typed, valid or not (one role at most holds 1000)',
    }),
  })
  .strict();

/** One pattern of a preview: whether it is valid and how many tools it matches alone. */
export const previewPatternSchema = z.object({
  pattern: z.string(),
  problem: z
    .string()
    .nullable()
    .meta({ description: 'Why the pattern is invalid; null when valid' }),
  matches: z.number().int().meta({ description: 'Tools this pattern matches on its own' }),
});

/** One tool a preview matches. */
export const previewToolSchema = z.object({
  path: z.string(),
  name: z.string(),
  pluginId: z.string(),
  destructive: z.boolean(),
});

/** Answer of `POST /api/policy/preview`. */
export const previewSchema = z.object({
  patterns: z.array(previewPatternSchema),
  tools: z
    .array(previewToolSchema)
    .meta({ description: 'Every mounted tool the valid patterns match, sorted by path' }),
  totalTools: z.number().int().meta({ description: 'How many tools are mounted in all' }),
});

export type Preview = z.infer<typeof previewSchema>;
