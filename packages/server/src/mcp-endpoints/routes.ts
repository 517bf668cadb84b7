import type { GatewayDatabase } from '../db/database.js';
import type { AnyRoute } from '../http/route.js';
import type { PolicyService } from '../policy/policy-service.js';
import { createEndpointRoute } from './create-endpoint.js';
import { deleteEndpointRoute } from './delete-endpoint.js';
import type { EndpointScopes } from './endpoint-scopes.js';
import { listEndpointsRoute } from './list-endpoints.js';
import { previewEndpointRoute } from './preview-endpoint.js';
import { updateEndpointRoute } from './update-endpoint.js';

/** What the MCP endpoint routes read of the gateway's services. */
export type McpEndpointsDeps = { database: GatewayDatabase; policy: PolicyService } & {
  endpointScopes: EndpointScopes;
};

/**
 * The `/api/connections/mcp-endpoints` routes: create, list, change (tools and mode), preview and
 * delete per-user MCP endpoints.
 * Their paths never reach a `/api/connections/:id` route: no such route shares both method and
 * segment count with them, and those routes answer 404 to an id that is not a UUID.
 *
 * @example
 * const routes: AnyRoute[] = [...mcpEndpointRoutes(services)];
 */
export function mcpEndpointRoutes(services: McpEndpointsDeps): AnyRoute[] {
  return [
    createEndpointRoute(services),
    listEndpointsRoute(services),
    previewEndpointRoute(services),
    updateEndpointRoute(services),
    deleteEndpointRoute(services),
  ];
}
