import type { GatewayDatabase } from '../db/database.js';
import type { ServerLogger } from '../http/logger.js';
import { defineRoute, noQuery } from '../http/route.js';
import type { UpstreamService } from '../upstream/upstream-service.js';
import type { PluginCatalog } from './plugin-catalog.js';
import { RegistryService } from './registry-service.js';
import { sourceListSchema } from './schemas.js';

/** `GET /api/registry/sources`: every stored registration and what it serves here. */
export function listSourcesRoute(services: {
  database: GatewayDatabase;
  plugins: PluginCatalog;
  logger: ServerLogger;
  upstreams: UpstreamService;
}) {
  const registry = new RegistryService(services);
  return defineRoute({
    method: 'get',
    path: '/api/registry/sources',
    summary: 'List registered plugin sources',
    tag: 'Registry',
    access: 'service-or-admin',
    query: noQuery,
    responses: {
      200: { description: 'Every registration, oldest first', schema: sourceListSchema },
      401: { description: 'No credentials' },
      403: { description: 'Neither an admin nor the service secret' },
    },
    async handler(c) {
      return c.json({ sources: await registry.list() });
    },
  });
}
