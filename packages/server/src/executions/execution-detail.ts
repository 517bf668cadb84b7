import type { GatewayDatabase } from '../db/database.js';
import { Refusal } from '../errors/refusal.js';
import { defineRoute } from '../http/route.js';
import { readableUser } from './access.js';
import type { ExecutionRecorder } from './recorder.js';
import { executionDetailSchema, executionIdParams } from './schemas.js';
import { findExecution } from './store.js';

/**
 * `GET /api/executions/:id`: one tool call as recorded (arguments redacted, approval decision,
 * duration, endpoint and client). A user reads their own; another's is a 404, as if absent.
 *
 * @example
 * routes.push(executionDetailRoute(services));
 */
export function executionDetailRoute(services: {
  database: GatewayDatabase;
  executions: ExecutionRecorder;
}) {
  return defineRoute({
    method: 'get',
    path: '/api/executions/:id',
    summary: 'One tool call (execution record)',
    tag: 'Executions',
    access: 'user',
    params: executionIdParams,
    responses: {
      200: { description: 'The execution record', schema: executionDetailSchema },
      400: { description: 'An unknown parameter' },
      401: { description: 'No credentials' },
      403: { description: 'A service account' },
      404: { description: 'No such call among those the caller may read' },
    },
    async handler(c, { params, principal }) {
      const own = readableUser(principal);
      await services.executions.flush();
      const execution = await findExecution(services.database, params.id, own);
      if (execution === undefined) throw new Refusal('not_found', 'No such tool call');
      return c.json({ execution }, 200);
    },
  });
}
