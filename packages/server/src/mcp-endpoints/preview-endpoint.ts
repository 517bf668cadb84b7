import { defineRoute } from '../http/route.js';
import type { PolicyService } from '../policy/policy-service.js';
import { previewPatterns } from '../role-preview/index.js';
import { previewSchema } from '../role-preview/schemas.js';
import { previewEndpointBody } from './schemas.js';

/**
 * `POST /api/connections/mcp-endpoints/preview`: the tools an endpoint with `tools` would serve the
 * user (their role's tools that the patterns match), each pattern checked on its own, for the
 * web app's live preview. The role preview's matcher and answer, over the user's role instead of
 * every tool. Changes nothing.
 *
 * @example
 * routes.push(previewEndpointRoute(services));
 */
export function previewEndpointRoute(services: { policy: PolicyService }) {
  return defineRoute({
    method: 'post',
    path: '/api/connections/mcp-endpoints/preview',
    summary: 'Preview the tools an MCP endpoint with these patterns would serve',
    tag: 'MCP endpoints',
    access: 'user',
    actsFor: 'body',
    body: previewEndpointBody,
    responses: {
      200: {
        description:
          "Each pattern checked (`matches: 0` for one that matches no tool today), and the tools of the user's role the valid ones match; `totalTools` counts the role's tools",
        schema: previewSchema,
      },
      400: { description: 'Not a list of at most 1000 strings, or an unknown field' },
      401: { description: 'No credentials' },
      403: { description: "Another user's userId, without being an admin" },
      404: { description: 'No such user' },
    },
    async handler(c, { body }) {
      const { tools } = await services.policy.resolveForUser(body.userId);
      return c.json(previewPatterns(body.tools, tools), 200);
    },
  });
}
