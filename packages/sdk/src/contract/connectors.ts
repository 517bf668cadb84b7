import { z } from 'zod';

/** Answer of `GET /api/connectors/availability`. */
export const connectorAvailabilitySchema = z.object({
  connectors: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      kind: z.enum(['social', 'generic', 'api_key', 'mcp_oauth', 'plugin_oauth']).meta({
        description:
          '`mcp_oauth`: an upstream MCP source whose users each connect their own account at it (`gateway connect <source id>`). `plugin_oauth`: an OAuth provider a plugin declares itself (`gateway connect <provider id>`)',
      }),
      configured: z.boolean().meta({
        description:
          "OAuth: `<ID>_CLIENT_ID` and `<ID>_CLIENT_SECRET` are both set (a plugin's own provider: or an admin gave it a client in Admin → Providers). API key: `<ID>_API_KEY` is set",
      }),
      callbackUrl: z
        .string()
        .optional()
        .meta({ description: 'OAuth only: the redirect URI to register with the provider' }),
    }),
  ),
});
