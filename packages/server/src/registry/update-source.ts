import type { GatewayDatabase } from '../db/database.js';
import type { ServerLogger } from '../http/logger.js';
import { defineRoute } from '../http/route.js';
import type { UpstreamService } from '../upstream/upstream-service.js';
import type { PluginCatalog } from './plugin-catalog.js';
import { RegistryService } from './registry-service.js';
import { sourceIdParams, sourceUpdatedSchema, updateSourceBody } from './schemas.js';

/**
 * `PATCH /api/registry/sources/:id`: changes an upstream MCP source's settings (which tools ask
 * for approval, whether service accounts may use them) without registering it again. Its URL
 * and auth are not changed here: remove it and register it again.
 */
export function updateSourceRoute(services: {
  database: GatewayDatabase;
  plugins: PluginCatalog;
  logger: ServerLogger;
  upstreams: UpstreamService;
}) {
  const registry = new RegistryService(services);
  return defineRoute({
    method: 'patch',
    path: '/api/registry/sources/:id',
    summary: "Change an upstream MCP source's settings",
    tag: 'Registry',
    access: 'service-or-admin',
    params: sourceIdParams,
    body: updateSourceBody,
    responses: {
      200: {
        description: 'Changed; its tools are served with the new settings',
        schema: sourceUpdatedSchema,
      },
      400: { description: 'Invalid or unknown fields, or a source without such settings' },
      401: { description: 'No credentials' },
      403: { description: 'Neither an admin nor the service secret' },
      404: { description: 'No registration with this id' },
    },
    async handler(c, { params, body }) {
      return c.json({ source: await registry.update(params.id, body) });
    },
  });
}
