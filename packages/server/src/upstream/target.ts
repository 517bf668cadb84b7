import { z } from 'zod';
import { RESERVED_NAMESPACES } from '../registry/plugin-catalog.js';

const noneAuth = z.object({ kind: z.literal('none') }).strict();

const oauthFields = {
  kind: z.literal('oauth'),
  clientId: z.string().min(1).max(500).optional().meta({
    description:
      "A client registered beforehand at the upstream's authorization server; without it the gateway registers itself (RFC 7591) at the first connect",
  }),
  scopes: z
    .array(z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]{1,200}$/, 'An OAuth scope'))
    .max(50)
    .optional()
    .meta({
      description:
        "Scopes to ask for; default the upstream's `WWW-Authenticate` scope, else its metadata's `scopes_supported`",
    }),
};

/** `{ kind: "oauth" }` as stored and listed: never the client secret. */
const oauthAuth = z.object(oauthFields).strict();

/** `{ kind: "oauth" }` as registered: may carry the pre-registered client's secret. */
const oauthAuthInput = z
  .object({
    ...oauthFields,
    clientSecret: z.string().min(1).max(2000).optional().meta({
      description: 'The secret of `clientId`; stored encrypted and never shown again',
    }),
  })
  .strict()
  .refine((auth) => auth.clientSecret === undefined || auth.clientId !== undefined, {
    message: 'clientSecret needs clientId',
    path: ['clientSecret'],
  });

const headerAuth = z
  .object({
    kind: z.literal('header'),
    provider: z
      .string()
      .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'Use 1-64 of a-z, 0-9, _ and -')
      .meta({
        description:
          "The provider a credential is vended for: the calling user's own connection, else the team connection, else `<UPPER>_API_KEY`",
      }),
    header: z
      .string()
      .regex(/^[A-Za-z0-9-]{1,64}$/, 'An HTTP header name, e.g. `Authorization`')
      .refine(
        (name) => !FORBIDDEN_HEADERS.has(name.toLowerCase()),
        'This header is set by the gateway itself',
      )
      .meta({ description: 'The header that carries the credential, e.g. `Authorization`' }),
    scheme: z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,32}$/, 'A word such as `Bearer`')
      .optional()
      .meta({ description: 'Put before the credential with a space, e.g. `Bearer`' }),
  })
  .strict();

/** How the gateway authenticates to an upstream MCP server over HTTP. */
export const upstreamAuthSchema = z
  .discriminatedUnion('kind', [noneAuth, oauthAuth, headerAuth])
  .meta({
    description: 'How the gateway authenticates to the upstream; default `{ kind: "none" }`',
  });

/** `auth` of `POST /api/registry/sources`: as {@link upstreamAuthSchema}, an oauth client's secret too. */
export const upstreamAuthInputSchema = z
  .discriminatedUnion('kind', [noneAuth, oauthAuthInput, headerAuth])
  .meta({
    description:
      'How the gateway authenticates to the upstream; default `{ kind: "none" }`. `oauth`: each user connects their own account at the upstream (MCP authorization)',
  });

/** `auth` as registered, a pre-registered OAuth client's secret included. */
export type UpstreamAuthInput = z.infer<typeof upstreamAuthInputSchema>;

// Headers the MCP transport or HTTP itself owns: a credential there would break the connection.
const FORBIDDEN_HEADERS = new Set([
  'host',
  'content-type',
  'content-length',
  'accept',
  'connection',
  'transfer-encoding',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
]);

/** How the gateway authenticates to an upstream MCP server over HTTP. */
export type UpstreamAuth = z.infer<typeof upstreamAuthSchema>;

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

/**
 * Which tools of an upstream ask the user for approval before a call is forwarded (besides those
 * named in `approvalRequired`, which always ask): `hints` every tool unless its upstream says it is
 * read-only (`readOnlyHint: true`) or not destructive (`destructiveHint: false`), MCP's own
 * defaults; `all` every tool; `listed` only the named ones.
 */
export const approvalModeSchema = z.enum(['hints', 'all', 'listed']).meta({
  description:
    'Which tools ask for approval besides `approvalRequired`: `hints` (default) every tool its upstream does not annotate `readOnlyHint: true` or `destructiveHint: false`, `all` every tool, `listed` none',
});

/** Which tools of an upstream ask for approval: see {@link approvalModeSchema}. */
export type ApprovalMode = z.infer<typeof approvalModeSchema>;

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
