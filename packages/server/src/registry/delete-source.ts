import type { GatewayDatabase } from '../db/database.js';
import type { ServerLogger } from '../http/logger.js';
import { defineRoute } from '../http/route.js';
import type { UpstreamService } from '../upstream/upstream-service.js';
import type { PluginCatalog } from './plugin-catalog.js';
import { RegistryService } from './registry-service.js';
import { sourceDeletedSchema, sourceIdParams } from './schemas.js';

/** `DELETE /api/registry/sources/:id`: removes a registration and stops serving its tools. */
export function deleteSourceRoute(services: {
  database: GatewayDatabase;
  plugins: PluginCatalog;
  logger: ServerLogger;
  upstreams: UpstreamService;
}) {
  const registry = new RegistryService(services);
  return defineRoute({
    method: 'delete',
    path: '/api/registry/sources/:id',
    summary: 'Remove a plugin source registration',
    tag: 'Registry',
    access: 'service-or-admin',
    params: sourceIdParams,
    responses: {
      200: { description: 'Removed; its tools are no longer served', schema: sourceDeletedSchema },
      401: { description: 'No credentials' },
      403: { description: 'Neither an admin nor the service secret' },
      404: { description: 'No registration with this id' },
    },
    async handler(c, { params }) {
      await registry.remove(params.id);
      return c.json({ deleted: [params.id] });
    },
  });
}
