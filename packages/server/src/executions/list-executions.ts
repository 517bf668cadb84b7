import type { GatewayDatabase } from '../db/database.js';
import { HttpError } from '../http/errors.js';
import { defineRoute } from '../http/route.js';
import type { ExecutionRecorder } from './recorder.js';
import { executionPageSchema, listExecutionsQuery } from './schemas.js';
import { decodeCursor, listExecutions } from './store.js';

/**
 * `GET /api/executions?userId=&cursor=&limit=`: a user's tool calls, newest first; admins may read
 * anyone's.
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
    summary: "List a user's tool calls (execution records), newest first",
    tag: 'Executions',
    access: 'user',
    actsFor: 'query',
    query: listExecutionsQuery,
    responses: {
      200: { description: 'One page of execution records', schema: executionPageSchema },
      400: { description: 'userId missing, a bad cursor or limit, or an unknown parameter' },
      401: { description: 'No credentials' },
      403: { description: "Another user's userId, without being an admin" },
    },
    async handler(c, { query }) {
      const cursor = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
      if (query.cursor !== undefined && cursor === undefined) {
        throw new HttpError('validation_failed', 'Invalid query', [
          { path: 'cursor', message: 'Not a cursor this API gave out' },
        ]);
      }
      // Records are written in batches; what this instance still holds goes first.
      await services.executions.flush();
      const page = await listExecutions(services.database, {
        userId: query.userId,
        limit: query.limit,
        cursor,
      });
      return c.json(page, 200);
    },
  });
}
