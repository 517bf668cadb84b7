import { connectorAvailabilitySchema } from '@gateway/sdk/contract';
import type { Env } from '../config/env.js';
import type { AnyRoute } from '../http/route.js';
import { defineRoute, noQuery } from '../http/route.js';
import type { PluginCatalog } from '../registry/plugin-catalog.js';
import type { UpstreamService } from '../upstream/upstream-service.js';
import { UPSTREAM_CALLBACK_PATH, type UpstreamOAuthService } from '../upstream-oauth/index.js';
import { connectorAvailability } from './availability.js';

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

export { connectorAvailabilitySchema };
