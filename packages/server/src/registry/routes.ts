import type { AnyRoute } from '../http/route.js';
import type { GatewayServices } from '../services.js';
import { deleteSourceRoute } from './delete-source.js';
import { listSourcesRoute } from './list-sources.js';
import { registerSourceRoute } from './register-source.js';

/**
 * The `/api/registry/sources` routes: register, list and remove plugin sources.
 *
 * @example
 * const routes: AnyRoute[] = [...registryRoutes(services)];
 */
export function registryRoutes(services: GatewayServices): AnyRoute[] {
  return [registerSourceRoute(services), listSourcesRoute(services), deleteSourceRoute(services)];
}
