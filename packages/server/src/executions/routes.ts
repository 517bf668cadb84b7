import type { GatewayDatabase } from '../db/database.js';
import type { AnyRoute } from '../http/route.js';
import { listExecutionsRoute } from './list-executions.js';
import type { ExecutionRecorder } from './recorder.js';

/** What the execution routes read of the gateway's services. */
export type ExecutionsDeps = { database: GatewayDatabase; executions: ExecutionRecorder };

/**
 * The `/api/executions` routes.
 *
 * @example
 * const routes: AnyRoute[] = [...executionRoutes(services)];
 */
export function executionRoutes(services: ExecutionsDeps): AnyRoute[] {
  return [listExecutionsRoute(services)];
}
