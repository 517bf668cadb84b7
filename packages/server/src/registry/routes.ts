import type { AnyRoute } from '../http/route.js';
import type { GatewayServices } from '../services.js';
import { deleteSourceRoute } from './delete-source.js';
import { listSourcesRoute } from './list-sources.js';
import { registerSourceRoute } from './register-source.js';
import { updateSourceRoute } from './update-source.js';

/** What the registry routes read of the gateway's services. */
export type RegistryDeps = Pick<GatewayServices, 'database' | 'plugins' | 'logger' | 'upstreams'>;

/**
 * The `/api/registry/sources` routes: register, list, change and remove sources.
 *
 * @example
 * const routes: AnyRoute[] = [...registryRoutes(services)];
 */
export function registryRoutes(services: RegistryDeps): AnyRoute[] {
  return [
    registerSourceRoute(services),
    listSourcesRoute(services),
    updateSourceRoute(services),
    deleteSourceRoute(services),
  ];
}
