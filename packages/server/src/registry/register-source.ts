import type { GatewayDatabase } from '../db/database.js';
import type { ServerLogger } from '../http/logger.js';
import { defineRoute } from '../http/route.js';
import type { UpstreamService } from '../upstream/upstream-service.js';
import type { PluginCatalog } from './plugin-catalog.js';
import { RegistryService } from './registry-service.js';
import { registerSourceBody, sourceRegisteredSchema } from './schemas.js';

/**
 * `POST /api/registry/sources`: mounts a loaded plugin, or an upstream MCP server's tools, under a
 * namespace and stores the registration, so it is mounted again after a restart.
 */
export function registerSourceRoute(services: {
  database: GatewayDatabase;
  plugins: PluginCatalog;
  logger: ServerLogger;
  upstreams: UpstreamService;
}) {
  const registry = new RegistryService(services);
  return defineRoute({
    method: 'post',
    path: '/api/registry/sources',
    summary: 'Register a source: a loaded plugin, or an upstream MCP server, under a namespace',
    tag: 'Registry',
    access: 'service-or-admin',
    body: registerSourceBody,
    responses: {
      201: { description: 'Registered; its tools are served', schema: sourceRegisteredSchema },
      400: {
        description:
          'Invalid body (`validation_failed`), or tool paths outside `<namespace>.` (`bad_request`, `details` lists them)',
      },
      401: { description: 'No credentials' },
      403: { description: 'Neither an admin nor the service secret' },
      404: { description: 'No plugin with this `pluginId` is loaded' },
      409: { description: 'The `id` is taken, or the namespace is already registered' },
      503: {
        description:
          'An `mcp` source whose tool list could not be fetched (`service_unavailable`; the message says why)',
      },
    },
    async handler(c, { body, principal }) {
      const registrant = principal.kind === 'user' ? principal.userId : undefined;
      return c.json(await registry.register(body, registrant), 201);
    },
  });
}
