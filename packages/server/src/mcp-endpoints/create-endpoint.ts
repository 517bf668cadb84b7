import type { GatewayDatabase } from '../db/database.js';
import { Refusal } from '../errors/refusal.js';
import { defineRoute } from '../http/route.js';
import { createEndpointBody, endpointCreatedSchema } from './schemas.js';
import { createEndpoint } from './store.js';

/**
 * `POST /api/connections/mcp-endpoints`: makes a per-user MCP endpoint and answers with its
 * token, the one time it is shown.
 *
 * @example
 * routes.push(createEndpointRoute(services));
 */
export function createEndpointRoute(services: { database: GatewayDatabase }) {
  return defineRoute({
    method: 'post',
    path: '/api/connections/mcp-endpoints',
    summary: 'Create an MCP endpoint (its token is shown once)',
    tag: 'MCP endpoints',
    access: 'user',
    actsFor: 'body',
    body: createEndpointBody,
    responses: {
      201: { description: 'Created; the token is not shown again', schema: endpointCreatedSchema },
      400: { description: 'Invalid or unknown fields' },
      401: { description: 'No credentials' },
      403: { description: "Another user's userId, without being an admin" },
      404: { description: 'No such user' },
      409: { description: 'The user already has an endpoint with this name' },
    },
    async handler(c, { body }) {
      const result = await createEndpoint(services.database.db, {
        userId: body.userId,
        name: body.name,
        description: body.description,
        tools: body.tools,
        mode: body.mode,
      });
      if (!result.ok) {
        throw result.problem === 'user_not_found'
          ? new Refusal('not_found', `No user ${body.userId}`)
          : new Refusal(
              'conflict',
              `An MCP endpoint named "${body.name}" already exists; choose another name or delete that one`,
            );
      }
      // The raw token must not linger in any cache between here and the caller.
      c.header('Cache-Control', 'no-store');
      return c.json(result.endpoint, 201);
    },
  });
}
