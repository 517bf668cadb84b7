import type { GatewayDatabase } from '../db/database.js';
import { Refusal } from '../errors/refusal.js';
import { defineRoute } from '../http/route.js';
import { userFilterFor } from './access.js';
import type { ExecutionRecorder } from './recorder.js';
import { executionPageSchema, listExecutionsQuery } from './schemas.js';
import { decodeCursor, listExecutions } from './store.js';

/**
 * `GET /api/executions?userId=&tool=&source=&outcome=&endpointId=&from=&to=&cursor=&limit=`: tool
 * calls matching the filters, newest first. A user reads their own (naming their `userId`); admins
 * and the service secret anyone's, or everyone's without `userId`.
 *
 * @example
 * routes.push(listExecutionsRoute(services));
 */
export function listExecutionsRoute(services: {
  database: GatewayDatabase;
  executions: ExecutionRecorder;
}) {
  return defineRoute({
    method: 'get',
    path: '/api/executions',
    summary: 'List tool calls (execution records), filtered, newest first',
    tag: 'Executions',
    access: 'user',
    actsFor: 'query',
    query: listExecutionsQuery,
    responses: {
      200: { description: 'One page of execution records', schema: executionPageSchema },
      400: { description: 'A bad filter, cursor or limit, or an unknown parameter' },
      401: { description: 'No credentials' },
      403: {
        description:
          "Another user's userId, or no userId, without being an admin; a service account",
      },
    },
    async handler(c, { query, principal }) {
      const userId = userFilterFor(principal, query.userId);
      const cursor = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
      if (query.cursor !== undefined && cursor === undefined) {
        throw new Refusal('validation_failed', 'Invalid query', [
          { path: 'cursor', message: 'Not a cursor this API gave out' },
        ]);
      }
      // Records are written in batches; what this instance still holds goes first.
      await services.executions.flush();
      const page = await listExecutions(services.database, { ...query, userId, cursor });
      return c.json(page, 200);
    },
  });
}
