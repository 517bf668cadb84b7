import type { GatewayDatabase } from '../db/database.js';
import { Refusal } from '../errors/refusal.js';
import { idParams, requireUuid } from '../http/id-param.js';
import { defineRoute } from '../http/route.js';
import type { EndpointScopes } from './endpoint-scopes.js';
import { endpointUpdatedSchema, updateEndpointBody } from './schemas.js';
import { updateEndpoint } from './store.js';

/**
 * `PATCH /api/connections/mcp-endpoints/:id` (`{ userId, tools?, mode? }`): changes which tools an endpoint serves
 * (`tools`) and how (`mode`). The endpoint's open 2025 sessions, and no others, are told their
 * tool list changed (`notifications/tools/list_changed`), on every instance.
 *
 * @example
 * routes.push(updateEndpointRoute(services));
 */
export function updateEndpointRoute(
  services: { database: GatewayDatabase } & { endpointScopes: EndpointScopes },
) {
  return defineRoute({
    method: 'patch',
    path: '/api/connections/mcp-endpoints/:id',
    summary: 'Change the tools an MCP endpoint serves, and its mode',
    tag: 'MCP endpoints',
    access: 'user',
    actsFor: 'body',
    params: idParams,
    body: updateEndpointBody,
    responses: {
      200: {
        description: 'Changed; its sessions hear tools/list_changed',
        schema: endpointUpdatedSchema,
      },
      400: { description: 'Invalid or unknown fields, an invalid pattern, or userId missing' },
      401: { description: 'No credentials' },
      403: { description: "Another user's userId, without being an admin" },
      404: { description: "No such endpoint among the user's" },
    },
    async handler(c, { params, body }) {
      const id = requireUuid(params.id, 'MCP endpoint');
      const endpoint = await updateEndpoint(services.database.db, body.userId, id, {
        tools: body.tools,
        mode: body.mode,
      });
      // Someone else's endpoint is "not found" too: a 403 would confirm that it exists.
      if (endpoint === undefined) throw new Refusal('not_found', `No MCP endpoint ${id}`);
      if (body.tools !== undefined || body.mode !== undefined) services.endpointScopes.changed(id);
      return c.json({ endpoint }, 200);
    },
  });
}
