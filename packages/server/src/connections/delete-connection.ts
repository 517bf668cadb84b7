import type { GatewayDatabase } from '../db/database.js';
import { Refusal } from '../errors/refusal.js';
import { deletedSchema, userIdQuery } from '../http/common-schemas.js';
import { idParams, requireUuid } from '../http/id-param.js';
import { defineRoute } from '../http/route.js';
import { deleteUserConnection } from './store.js';

/**
 * `DELETE /api/connections/:id?userId=`: deletes the user's connection and every connection
 * nested below it, in one transaction.
 *
 * @example
 * routes.push(deleteConnectionRoute(services));
 */
export function deleteConnectionRoute(services: { database: GatewayDatabase }) {
  return defineRoute({
    method: 'delete',
    path: '/api/connections/:id',
    summary: 'Delete a connection and every connection nested below it',
    tag: 'Connections',
    access: 'user',
    actsFor: 'query',
    params: idParams,
    query: userIdQuery,
    responses: {
      200: { description: 'Deleted; the ids removed, the connection first', schema: deletedSchema },
      400: { description: 'userId missing, or an unknown query parameter' },
      401: { description: 'No credentials' },
      403: { description: "Another user's userId, without being an admin" },
      404: { description: "No such connection among the user's own" },
    },
    async handler(c, { params, query }) {
      const id = requireUuid(params.id, 'connection');
      const deleted = await deleteUserConnection(services.database.db, query.userId, id);
      // Someone else's connection is "not found" too: a 403 would confirm that it exists.
      if (deleted.length === 0) throw new Refusal('not_found', `No connection ${id}`);
      return c.json({ deleted }, 200);
    },
  });
}
