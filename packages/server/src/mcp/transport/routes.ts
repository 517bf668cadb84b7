import type { Hono } from 'hono';
import type { AppEnv } from '../../http/app-env.js';
import { incomingOf } from '../../http/incoming.js';
import type { Authenticate } from '../../identity/index.js';
import type { LazyMcpEndpoint } from './lazy-endpoint.js';

const PATHS = ['/mcp', '/mcp/:token'];

/**
 * Mounts the MCP endpoint at `/mcp` (token in `Authorization: Bearer`) and `/mcp/:token` (for
 * clients that only take a URL). The request log names the route pattern, never the token.
 *
 * `Host`, `Origin` and the body size were checked by the gateway's front door (`requestGuard`)
 * before the token is looked up. A preflight answers 405 without CORS headers: browsers may not
 * call the endpoint from other sites.
 *
 * @example
 * mountMcp(app, new LazyMcpEndpoint(services, authSecret, maxBodyBytes), authenticate);
 */
export function mountMcp(
  app: Hono<AppEnv>,
  mcp: Pick<LazyMcpEndpoint, 'endpoint'>,
  authenticate: Authenticate,
): void {
  app.on(
    'OPTIONS',
    PATHS,
    () => new Response(null, { status: 405, headers: { Allow: 'GET, POST, DELETE' } }),
  );
  app.all('/mcp', async (c) => {
    const principal = await authenticate(c, 'mcp');
    c.set('principal', principal);
    return (await mcp.endpoint()).handle(
      c.req.raw,
      principal,
      c.get('sessionState'),
      incomingOf(c),
    );
  });
  app.all('/mcp/:token', async (c) => {
    const principal = await authenticate(c, 'mcp', c.req.param('token'));
    c.set('principal', principal);
    return (await mcp.endpoint()).handle(
      c.req.raw,
      principal,
      c.get('sessionState'),
      incomingOf(c),
    );
  });
}
