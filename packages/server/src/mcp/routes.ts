import { hostHeaderValidation, originValidation } from '@modelcontextprotocol/hono';
import type { Hono } from 'hono';
import type { AppEnv } from '../http/app-env.js';
import type { McpEndpoint } from './mcp-endpoint.js';

const PATHS = ['/mcp', '/mcp/:token'];

/**
 * Mounts the MCP endpoint at `/mcp` (token in `Authorization: Bearer`) and `/mcp/:token` (for
 * clients that only take a URL). The request log names the route pattern, never the token.
 *
 * `Host` and `Origin` are checked first, against DNS rebinding, by the MCP SDK's Hono middleware
 * (`@modelcontextprotocol/hono`): a refused request answers 403 with a JSON-RPC error before its
 * token is looked up. A preflight answers 405 without CORS headers: browsers may not call the
 * endpoint from other sites.
 *
 * @example
 * mountMcp(app, new McpEndpoint(services, authSecret));
 */
export function mountMcp(app: Hono<AppEnv>, endpoint: McpEndpoint): void {
  app.on(
    'OPTIONS',
    PATHS,
    () => new Response(null, { status: 405, headers: { Allow: 'GET, POST, DELETE' } }),
  );
  const host = hostHeaderValidation(endpoint.allowedHosts);
  const origin = originValidation(endpoint.allowedOrigins);
  app.all('/mcp', host, origin, (c) => endpoint.handle(c.req.raw));
  app.all('/mcp/:token', host, origin, (c) => endpoint.handle(c.req.raw, c.req.param('token')));
}
