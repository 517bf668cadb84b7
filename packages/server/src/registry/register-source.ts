import { defineRoute } from '../http/route.js';
import type { GatewayServices } from '../services.js';
import { RegistryService } from './registry-service.js';
import { registerSourceBody, sourceRegisteredSchema } from './schemas.js';

/**
 * `POST /api/registry/sources`: mounts a loaded plugin under a namespace and stores the
 * registration, so it is mounted again after a restart.
 */
export function registerSourceRoute(services: GatewayServices) {
  const registry = new RegistryService(services);
  return defineRoute({
    method: 'post',
    path: '/api/registry/sources',
    summary: 'Register a plugin source: serve a loaded plugin under a namespace',
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
    },
    async handler(c, { body }) {
      return c.json(await registry.register(body), 201);
    },
  });
}
