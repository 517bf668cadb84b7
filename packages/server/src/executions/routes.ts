import type { AnyRoute } from '../http/route.js';
import type { GatewayServices } from '../services.js';
import { listExecutionsRoute } from './list-executions.js';

/**
 * The `/api/executions` routes.
 *
 * @example
 * const routes: AnyRoute[] = [...executionRoutes(services)];
 */
export function executionRoutes(services: GatewayServices): AnyRoute[] {
  return [listExecutionsRoute(services)];
}
