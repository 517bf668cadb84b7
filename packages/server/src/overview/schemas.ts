import { z } from 'zod';

const counts = z.object({
  ok: z.number(),
  error: z.number().meta({ description: 'Errors and timeouts' }),
  denied: z.number(),
  pending: z.number().meta({ description: 'Waiting for an approval' }),
  expired: z.number().meta({ description: 'The approval expired' }),
});

const hour = z.object({ hour: z.string().meta({ description: 'ISO 8601, UTC' }), counts });

const tool = z.object({
  toolPath: z.string(),
  calls: z.number(),
  errors: z.number(),
  p50Ms: z.number().nullable().meta({ description: 'Estimated from a latency histogram' }),
  p95Ms: z.number().nullable(),
});

/** Answer of `GET /api/overview`. */
export const overviewSchema = z.object({
  until: z.string().meta({ description: 'End of the window (exclusive): the next full hour' }),
  last24h: z.array(hour).meta({ description: '24 hours, oldest first' }),
  last7d: z.array(hour).meta({ description: '168 hours, oldest first' }),
  topByCalls: z.array(tool).meta({ description: 'Over the last 24 hours, at most 10' }),
  topByErrors: z
    .array(tool)
    .meta({ description: 'Over the last 24 hours, at most 10, errors only' }),
  pendingApprovals: z.object({
    count: z.number(),
    oldest: z.array(
      z.object({
        id: z.string(),
        userId: z.string(),
        toolPath: z.string(),
        createdAt: z.string(),
        expiresAt: z.string(),
      }),
    ),
  }),
  reconnects: z
    .array(z.object({ userId: z.string(), provider: z.string(), since: z.string() }))
    .meta({
      description:
        'Linked accounts and OAuth connections whose provider refused a refresh and that were not reconnected since (at most 50)',
    }),
});

export type Overview = z.infer<typeof overviewSchema>;
