import { z } from 'zod';

// The registry's sources (`/api/registry/sources`) and how the gateway authenticates to an
// upstream MCP server: the shapes of its answers, and the `auth` and `approval` fields a
// registration sends, which are the same shapes.

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

const upstreamStatusSchema = z
  .object({
    transport: z.enum(['http', 'stdio']),
    url: z.string().nullable(),
    auth: upstreamAuthSchema.nullable(),
    health: z.object({
      state: z.enum(['ok', 'degraded']).meta({
        description: '`degraded`: its calls failed repeatedly; they fail fast until `retryAt`',
      }),
      failures: z.number(),
      lastError: z.string().nullable(),
      retryAt: z.string().nullable(),
    }),
    toolsFetchedAt: z.string().nullable(),
    approvalRequired: z.array(z.string()).meta({
      description: 'Upstream tool names that always ask for approval',
    }),
    approval: approvalModeSchema,
    serviceAccountAllowed: z
      .boolean()
      .meta({ description: 'Whether service accounts may use its tools' }),
    allowElicitation: z
      .boolean()
      .meta({ description: "Whether the upstream's questions reach the calling user" }),
    allowSampling: z.boolean().meta({
      description: "Whether the upstream's sampling requests reach the calling user's client",
    }),
    mappedNames: z.record(z.string(), z.string()).meta({
      description: 'Served tool paths whose upstream name differs, with that name',
    }),
  })
  .meta({ description: 'For an `mcp` source: the upstream and its state on this instance' });

/** A stored registration. */
export const sourceSchema = z.object({
  id: z.string(),
  type: z.enum(['plugin', 'mcp']),
  namespace: z.string(),
  pluginId: z.string().nullable().meta({ description: 'The plugin; null for an `mcp` source' }),
  createdAt: z.iso.datetime(),
});

/** Answer of `POST /api/registry/sources`. */
export const sourceRegisteredSchema = z.object({
  source: sourceSchema,
  tools: z.array(z.string()).meta({ description: 'The paths of the tools now served' }),
});

/** Answer of `GET /api/registry/sources`. */
export const sourceListSchema = z.object({
  sources: z.array(
    sourceSchema.extend({
      mounted: z.boolean().meta({
        description:
          'False when the plugin is not loaded on this instance: its tools are not served',
      }),
      tools: z.array(z.string()).meta({ description: 'The paths of the tools it serves' }),
      upstream: upstreamStatusSchema.optional(),
    }),
  ),
});

/** Answer of `PATCH /api/registry/sources/:id`. */
export const sourceUpdatedSchema = z.object({ source: sourceListSchema.shape.sources.element });
