import { z } from 'zod';
import type { Env } from '../config/env.js';
import type { AnyRoute } from '../http/route.js';
import { defineRoute, noQuery } from '../http/route.js';
import type { PluginCatalog } from '../registry/plugin-catalog.js';
import type { UpstreamService } from '../upstream/upstream-service.js';
import { UPSTREAM_CALLBACK_PATH, type UpstreamOAuthService } from '../upstream-oauth/index.js';
import { connectorAvailability } from './availability.js';

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

/** What the connector availability route reads of the gateway's services. */
export type ConnectorsDeps = {
  env: Env;
  authBaseUrl: string;
  baseUrl: string;
  plugins: PluginCatalog;
  upstreams: UpstreamService;
  upstreamOAuth: Pick<UpstreamOAuthService, 'configuredPluginProviders'>;
};

/**
 * `GET /api/connectors/availability`: which OAuth and API-key connectors the server is wired up
 * for.
 *
 * @example
 * const routes: AnyRoute[] = [...connectorRoutes(services)];
 */
export function connectorRoutes(services: ConnectorsDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/api/connectors/availability',
      summary: 'Which OAuth and API-key connectors are configured',
      tag: 'Connectors',
      access: 'user',
      query: noQuery,
      responses: {
        200: {
          description:
            'Shipped OAuth providers first, then API-key and own OAuth providers of loaded plugins, then upstream MCP sources users connect with OAuth',
          schema: connectorAvailabilitySchema,
        },
        401: { description: 'No credentials' },
      },
      async handler(c) {
        const pluginOAuthConfigured = await services.upstreamOAuth.configuredPluginProviders();
        return c.json({
          connectors: connectorAvailability({
            pluginOAuthConfigured,
            env: services.env,
            authBaseUrl: services.authBaseUrl,
            plugins: services.plugins.plugins(),
            callbackUrl: `${services.baseUrl}${UPSTREAM_CALLBACK_PATH}`,
            upstreamOAuth: services.upstreams.oauthSources().map((source) => ({
              id: source.id,
              callbackUrl: `${services.baseUrl}${UPSTREAM_CALLBACK_PATH}`,
            })),
          }),
        });
      },
    }),
  ];
}
