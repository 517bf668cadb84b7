import { z } from 'zod';

/** Who serves a provider's credential for the user, in token-vending order. */
export const providerStateSchema = z.enum(['you', 'team', 'server', 'reconnect', 'none']).meta({
  description:
    '`you`: your own connection or linked OAuth account; `team`: a team connection an admin made; `server`: the server key `<ID>_API_KEY`; `reconnect`: nothing else serves and your linked OAuth account needs reconnecting (its provider refused to renew it); `none`: not connected',
});

/** One of the user's own connections of a provider (secret masked). */
export const statusConnectionSchema = z.object({
  id: z.uuid(),
  instanceName: z.string(),
  maskedSecret: z.string(),
  parentId: z.string().nullable().meta({ description: 'Parent connection, for nested instances' }),
  workspaceId: z.string().nullable(),
  updatedAt: z.string(),
});

/** The state of one auth provider for the user. */
export const providerStatusSchema = z.object({
  id: z.string().meta({ description: 'The auth provider id (a connection’s `toolId`)' }),
  name: z.string(),
  type: z.enum(['oauth2', 'api_key']),
  upstream: z
    .string()
    .meta({ description: 'The upstream provider (the OAuth account that serves it)' }),
  state: providerStateSchema,
  source: z
    .enum(['connection', 'team_connection', 'oauth', 'api_key'])
    .nullable()
    .meta({ description: 'Which token-vending source would serve now; null when none' }),
  oauth: z
    .object({
      configured: z.boolean().meta({ description: 'The server has this OAuth provider set up' }),
      linked: z.boolean().meta({ description: 'The user has linked an account of it' }),
      needsReconnect: z.boolean().meta({
        description:
          'The provider refused to renew the linked account (`invalid_grant`): it serves no tool until the user connects it again (`gateway connect <upstream>` or the Tools tab)',
      }),
      moreScope: z.string().optional().meta({
        description:
          "Upstream MCP sources only: the scopes (space-separated) a tool of the upstream asked for that the user's token lacks; the user's next connect asks for them (step-up authorization)",
      }),
    })
    .nullable()
    .meta({ description: 'OAuth providers only' }),
  teamConnected: z.boolean(),
  serverKey: z.boolean().meta({ description: '`<ID>_API_KEY` is set (its value is never shown)' }),
  connections: z
    .array(statusConnectionSchema)
    .meta({ description: "The user's own connections of this provider, oldest first" }),
});

/** One tool the user's role allows. */
export const statusToolSchema = z.object({
  path: z.string(),
  name: z.string(),
  description: z.string(),
  destructive: z.boolean(),
  authProvider: z.string().nullable(),
  allowedProviders: z.array(z.string()).meta({
    description:
      'The auth provider ids whose credentials the tool may obtain (`ctx.auth.getToken`): its plugin’s declared `authProviders`, in declaration order. Any other is refused.',
  }),
});

/** A plugin with the allowed tools and the providers they need. */
export const pluginStatusSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  tools: z.array(statusToolSchema),
  providers: z.array(providerStatusSchema),
});

/** Answer of `GET /api/tools/status`. */
export const toolStatusSchema = z.object({
  userId: z.string(),
  roleId: z.string(),
  plugins: z
    .array(pluginStatusSchema)
    .meta({ description: 'Plugins with at least one allowed tool, by name' }),
});
