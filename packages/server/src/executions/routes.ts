import type { GatewayDatabase } from '../db/database.js';
import type { AnyRoute } from '../http/route.js';
import { executionDetailRoute } from './execution-detail.js';
import { exportExecutionsRoute } from './export-executions.js';
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
  // The export before `:id`, so its path is not read as an id.
  return [
    listExecutionsRoute(services),
    exportExecutionsRoute(services),
    executionDetailRoute(services),
  ];
}
