import type { GatewayAuth } from '../auth/create-auth.js';
import type { Env } from '../config/env.js';
import type { GatewayDatabase } from '../db/database.js';
import { userIdQuery } from '../http/common-schemas.js';
import { type AnyRoute, defineRoute } from '../http/route.js';
import type { PolicyService } from '../policy/policy-service.js';
import type { PluginCatalog } from '../registry/plugin-catalog.js';
import type { UpstreamService } from '../upstream/upstream-service.js';
import type { UpstreamOAuthService } from '../upstream-oauth/service.js';
import { toolStatusSchema } from './schemas.js';
import { toolStatus } from './tool-status.js';

/** What the tool status route reads of the gateway's services. */
export type ToolStatusDeps = {
  database: GatewayDatabase;
  env: Env;
  plugins: PluginCatalog;
  policy: PolicyService;
  auth: GatewayAuth;
  upstreams: UpstreamService;
  upstreamOAuth: UpstreamOAuthService;
};

/**
 * `GET /api/tools/status?userId=`: the user's tools by plugin, with who connects each provider
 * they need (the web app's Tools tab).
 *
 * @example
 * routes.push(...toolStatusRoutes(services));
 */
export function toolStatusRoutes(services: ToolStatusDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/api/tools/status',
      summary: "A user's tools by plugin, with each provider's connection state",
      tag: 'Tools',
      access: 'user',
      actsFor: 'query',
      query: userIdQuery,
      responses: {
        200: {
          description: "The tools the user's role allows and who connects what they need",
          schema: toolStatusSchema,
        },
        400: { description: 'userId missing, or an unknown query parameter' },
        401: { description: 'No credentials' },
        403: { description: "Another user's userId without being an admin, or a service account" },
        404: { description: 'No such user' },
      },
      async handler(c, { query }) {
        return c.json(await toolStatus(services, query.userId), 200);
      },
    }),
  ];
}
