import { defineRoute } from '../http/route.js';
import type { MountedTool } from '../registry/index.js';
import type { PolicyService } from './policy-service.js';
import { resolvedToolsSchema, resolveQuery } from './schemas.js';

/** `GET /api/policy/resolve?userId=`: the tools the user's role allows. */
export function resolveToolsRoute(services: { policy: PolicyService }) {
  return defineRoute({
    method: 'get',
    path: '/api/policy/resolve',
    summary: "Resolve a user's tools",
    tag: 'Policy',
    access: 'user',
    actsFor: 'query',
    query: resolveQuery,
    responses: {
      200: { description: "The tools the user's role allows", schema: resolvedToolsSchema },
      400: { description: 'Missing or invalid userId (`validation_failed`)' },
      401: { description: 'No credentials' },
      403: { description: "Another user's id without being an admin, or a service account" },
      404: { description: 'No such user' },
    },
    async handler(c, { query }) {
      const { tools } = await services.policy.resolveForUser(query.userId);
      return c.json({ userId: query.userId, tools: tools.map(resolvedTool) });
    },
  });
}

function resolvedTool(tool: MountedTool) {
  return {
    path: tool.path,
    name: tool.name,
    description: tool.description,
    destructive: tool.destructive,
    ...(tool.authProvider === undefined ? {} : { authProvider: tool.authProvider }),
    pluginId: tool.pluginId,
    inputSchema: tool.inputJsonSchema,
  };
}
