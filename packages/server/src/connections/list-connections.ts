import type { GatewayDatabase } from '../db/database.js';
import { userIdQuery } from '../http/common-schemas.js';
import { defineRoute } from '../http/route.js';
import { connectionListSchema } from './schemas.js';
import { listUserConnections } from './store.js';

/**
 * `GET /api/connections?userId=`: the user's own connections, oldest first, secrets masked.
 *
 * @example
 * routes.push(listConnectionsRoute(services));
 */
export function listConnectionsRoute(services: { database: GatewayDatabase }) {
  return defineRoute({
    method: 'get',
    path: '/api/connections',
    summary: "List a user's connections (secrets masked)",
    tag: 'Connections',
    access: 'user',
    actsFor: 'query',
    query: userIdQuery,
    responses: {
      200: {
        description: "The user's own connections, oldest first",
        schema: connectionListSchema,
      },
      400: { description: 'userId missing, or an unknown query parameter' },
      401: { description: 'No credentials' },
      403: { description: "Another user's userId, without being an admin" },
    },
    async handler(c, { query }) {
      const connections = await listUserConnections(services.database.db, query.userId);
      return c.json({ connections }, 200);
    },
  });
}
