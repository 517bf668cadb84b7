import type { GatewayDatabase } from '../db/database.js';
import type { ServerLogger } from '../http/logger.js';
import type { AnyRoute } from '../http/route.js';
import type { UpstreamService } from '../upstream/upstream-service.js';
import { deleteSourceRoute } from './delete-source.js';
import { listSourcesRoute } from './list-sources.js';
import type { PluginCatalog } from './plugin-catalog.js';
import { registerSourceRoute } from './register-source.js';
import { updateSourceRoute } from './update-source.js';

/** What the registry routes read of the gateway's services. */
export type RegistryDeps = {
  database: GatewayDatabase;
  plugins: PluginCatalog;
  logger: ServerLogger;
  upstreams: UpstreamService;
};

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
