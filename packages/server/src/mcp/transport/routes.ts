import type { Context, Hono } from 'hono';
import type { AppEnv } from '../../http/app-env.js';
import { incomingOf } from '../../http/incoming.js';
import { outgoingOf } from '../../http/outgoing.js';
import type { Authenticate } from '../../identity/index.js';
import type { LazyMcpEndpoint } from './lazy-endpoint.js';

type McpEndpoint = Awaited<ReturnType<LazyMcpEndpoint['endpoint']>>;

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
  mcp: Pick<LazyMcpEndpoint, 'endpoint' | 'loaded'>,
  authenticate: Authenticate,
): void {
  app.on(
    'OPTIONS',
    PATHS,
    () => new Response(null, { status: 405, headers: { Allow: 'GET, POST, DELETE' } }),
  );
  // Each names its pattern for the request log, which would otherwise ask Hono for it.
  app.all('/mcp', (c) => {
    c.set('route', '/mcp');
    return serveMcp(c, mcp, authenticate(c, 'mcp'));
  });
  app.all('/mcp/:token', (c) => {
    c.set('route', '/mcp/:token');
    return serveMcp(c, mcp, authenticate(c, 'mcp', c.req.param('token')));
  });
}

/** The request of `c`, for whom `authenticating` finds, answered by the endpoint. */
async function serveMcp(
  c: Context<AppEnv>,
  mcp: Pick<LazyMcpEndpoint, 'endpoint' | 'loaded'>,
  authenticating: Promise<Parameters<McpEndpoint['handle']>[1]>,
): Promise<Response> {
  const principal = await authenticating;
  c.set('principal', principal);
  // Built by the first request: the others take no turn for it.
  return handle(c, mcp.loaded ?? (await mcp.endpoint()), principal);
}

/** The request of `c` answered by `endpoint`, with its Node message and response when it has them. */
function handle(
  c: Context<AppEnv>,
  endpoint: McpEndpoint,
  principal: Parameters<McpEndpoint['handle']>[1],
): Promise<Response> {
  const outgoing = outgoingOf(c);
  return endpoint.handle(
    c.req.raw,
    principal,
    c.get('sessionState'),
    incomingOf(c),
    outgoing === undefined ? undefined : (work) => outgoing.afterSent(work),
  );
}
