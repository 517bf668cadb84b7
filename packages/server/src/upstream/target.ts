import { approvalModeSchema, type UpstreamAuth, upstreamAuthSchema } from '@gateway/sdk/contract';
import { z } from 'zod';
import { RESERVED_NAMESPACES } from '../registry/plugin-catalog.js';

export {
  type ApprovalMode,
  approvalModeSchema,
  type UpstreamAuth,
  type UpstreamAuthInput,
  upstreamAuthInputSchema,
  upstreamAuthSchema,
} from '@gateway/sdk/contract';

/** An upstream MCP server: a Streamable HTTP endpoint, or a process the gateway starts (config only). */
export type UpstreamTarget =
  | { kind: 'http'; url: string; auth: UpstreamAuth }
  | {
      kind: 'stdio';
      command: string;
      args: readonly string[];
      env: Readonly<Record<string, string>>;
      cwd?: string;
      /** How long starting the process and its `initialize` may take. */
      startTimeoutMs?: number;
    };

/** How long a stdio upstream may take to start (`npx -y` may download the package first). */
export const DEFAULT_START_TIMEOUT_MS = 60_000;

/** A stdio upstream as the operator's config file names it (`upstreams` entries). */
export const stdioUpstreamSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'Use 1-64 of a-z, 0-9, _ and -'),
    namespace: z
      .string()
      .regex(/^[a-z0-9_]{1,64}$/, 'Use a-z, 0-9 and _ (underscore style)')
      .refine((value) => !RESERVED_NAMESPACES.has(value), {
        message: "The namespace `gateway` is reserved for the gateway's own tools; choose another",
      }),
    command: z.string().min(1),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).default({}),
    cwd: z.string().optional(),
    approvalRequired: z.array(z.string()).default([]),
    approval: approvalModeSchema.default('hints'),
    serviceAccountAllowed: z.boolean().default(false),
    allowElicitation: z.boolean().default(true),
    allowSampling: z.boolean().default(true),
    startTimeoutMs: z
      .number()
      .int()
      .min(1000, 'At least 1000 (1 s)')
      .max(600_000, 'At most 600000 (10 minutes)')
      .default(DEFAULT_START_TIMEOUT_MS),
  })
  .strict();

/** A stdio upstream from the config file. */
export type StdioUpstreamConfig = z.infer<typeof stdioUpstreamSchema>;

/** What is stored in `registry_sources.upstream` for an HTTP upstream. */
export const storedUpstreamSchema = z.object({
  url: z.string(),
  auth: upstreamAuthSchema,
  approvalRequired: z.array(z.string()).default([]),
  approval: approvalModeSchema.default('hints'),
  serviceAccountAllowed: z.boolean().default(false),
  allowElicitation: z.boolean().default(true),
  allowSampling: z.boolean().default(true),
  /**
   * For a `header` source registered by an admin: that admin's user id, whose own credential the
   * tool list is fetched with again (the schedule, `list_changed`), else the team's or the server
   * key, as at registration. Never listed by the API.
   */
  listedBy: z.string().optional(),
});

/**
 * Whether an upstream's questions (`elicitation/create`) and sampling requests reach the calling
 * user's client; off, the gateway declines them at once. Both default on.
 */
export const relaySwitches = {
  allowElicitation: z.boolean().optional().meta({
    description:
      "Whether the upstream's questions (elicitation) reach the calling user; off, each is declined at once (default true)",
  }),
  allowSampling: z.boolean().optional().meta({
    description:
      "Whether the upstream's sampling requests reach the calling user's client; off, each is refused at once (default true)",
  }),
};

/** What an upstream may ask the calling user through the gateway. */
export interface RelaySettings {
  allowElicitation: boolean;
  allowSampling: boolean;
}

/** A stored HTTP upstream's settings. */
export type StoredUpstream = z.infer<typeof storedUpstreamSchema>;
