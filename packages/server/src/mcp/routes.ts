import type { Hono } from 'hono';
import type { AppEnv } from '../http/app-env.js';
import type { McpEndpoint } from './mcp-endpoint.js';

/**
 * Mounts the MCP endpoint at `/mcp` (token in `Authorization: Bearer`) and `/mcp/:token` (for
 * clients that only take a URL). The request log names the route pattern, never the token.
 *
 * @example
 * mountMcp(app, new McpEndpoint(services, authSecret));
 */
export function mountMcp(app: Hono<AppEnv>, endpoint: McpEndpoint): void {
  app.all('/mcp', (c) => endpoint.handle(c.req.raw));
  app.all('/mcp/:token', (c) => endpoint.handle(c.req.raw, c.req.param('token')));
}
