import type { GatewayDatabase } from '../db/database.js';
import { userIdQuery } from '../http/common-schemas.js';
import { defineRoute } from '../http/route.js';
import { endpointListSchema } from './schemas.js';
import { listEndpoints } from './store.js';

/**
 * `GET /api/connections/mcp-endpoints?userId=`: the user's MCP endpoints, tokens masked.
 *
 * @example
 * routes.push(listEndpointsRoute(services));
 */
export function listEndpointsRoute(services: { database: GatewayDatabase }) {
  return defineRoute({
    method: 'get',
    path: '/api/connections/mcp-endpoints',
    summary: "List a user's MCP endpoints (tokens masked)",
    tag: 'MCP endpoints',
    access: 'user',
    actsFor: 'query',
    query: userIdQuery,
    responses: {
      200: { description: "The user's endpoints, oldest first", schema: endpointListSchema },
      400: { description: 'userId missing, or an unknown query parameter' },
      401: { description: 'No credentials' },
      403: { description: "Another user's userId, without being an admin" },
    },
    async handler(c, { query }) {
      const endpoints = await listEndpoints(services.database.db, query.userId);
      return c.json({ endpoints }, 200);
    },
  });
}
