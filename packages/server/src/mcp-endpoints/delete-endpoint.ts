import type { GatewayDatabase } from '../db/database.js';
import { Refusal } from '../errors/refusal.js';
import { deletedSchema, userIdQuery } from '../http/common-schemas.js';
import { idParams, requireUuid } from '../http/id-param.js';
import { defineRoute } from '../http/route.js';
import { deleteEndpoint } from './store.js';

/**
 * `DELETE /api/connections/mcp-endpoints/:id?userId=`: deletes an endpoint; its token stops
 * working at once.
 *
 * @example
 * routes.push(deleteEndpointRoute(services));
 */
export function deleteEndpointRoute(services: { database: GatewayDatabase }) {
  return defineRoute({
    method: 'delete',
    path: '/api/connections/mcp-endpoints/:id',
    summary: 'Delete an MCP endpoint (its token stops working)',
    tag: 'MCP endpoints',
    access: 'user',
    actsFor: 'query',
    params: idParams,
    query: userIdQuery,
    responses: {
      200: { description: 'Deleted', schema: deletedSchema },
      400: { description: 'userId missing, or an unknown query parameter' },
      401: { description: 'No credentials' },
      403: { description: "Another user's userId, without being an admin" },
      404: { description: "No such endpoint among the user's" },
    },
    async handler(c, { params, query }) {
      const id = requireUuid(params.id, 'MCP endpoint');
      const deleted = await deleteEndpoint(services.database.db, query.userId, id);
      // Someone else's endpoint is "not found" too: a 403 would confirm that it exists.
      if (deleted.length === 0) throw new Refusal('not_found', `No MCP endpoint ${id}`);
      return c.json({ deleted }, 200);
    },
  });
}
