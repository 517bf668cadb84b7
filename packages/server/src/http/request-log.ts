import type { MiddlewareHandler } from 'hono';
import { fromTrustedProxy } from '../auth/client-ip.js';
import { ANONYMOUS, logIdentity } from '../identity/principal.js';
import type { AppEnv } from './app-env.js';
import type { ServerLogger } from './logger.js';
import { outgoingOf } from './outgoing.js';
import { REQUEST_ID_HEADER, requestIdOf, withRequestId } from './request-id.js';

/** The methods Node's HTTP parser takes, as a line may write them unscanned. */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * Logs one line per request: method, route, status, duration and user id. The route is the
 * matched pattern (`/mcp/:token`), never the raw path, so tokens in URLs stay out of the log.
 *
 * Each request gets an id ({@link requestIdOf}: a trusted proxy's `X-Request-Id`, else a new
 * one), answered in `X-Request-Id` and carried by every log line written while it is handled.
 */
export function requestLog(
  logger: ServerLogger,
  observe?: (method: string, route: string, status: number, seconds: number) => void,
  trustedProxies: readonly string[] = [],
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    const given = c.req.header(REQUEST_ID_HEADER);
    const requestId = requestIdOf(
      given,
      given !== undefined && fromTrustedProxy(c, trustedProxies),
    );
    c.set('requestId', requestId);
    c.set('principal', ANONYMOUS);
    // From the network the id is preset on Node's response, written with the answer's head.
    const outgoing = outgoingOf(c);
    outgoing?.preset(REQUEST_ID_HEADER, requestId);
    await withRequestId(requestId, next);
    if (outgoing === undefined) answerRequestId(c, requestId);
    const ms = performance.now() - started;
    const { status } = c.res;
    const { method } = c.req;
    const principal = c.get('principal');
    const written = () => {
      // Hono works the pattern out from its list of matches (6-9 k instructions), unless the route
      // named itself; the request is routed no further once answered, so it names the same route
      // then as now.
      const matched = c.get('route') ?? c.req.routePath;
      const route = matched === '/*' || matched === '*' ? '(unmatched)' : matched;
      const userId = logIdentity(principal);
      const durationMs = Math.round(ms * 100) / 100;
      // Only what a caller can choose is scanned: a proxy's request id, a method Node's parser
      // does not know (a request made in process), a user id (ids come from sign-in). The route
      // is one of the gateway's own patterns, the figures are numbers, the id one it made.
      if (requestId !== given && KNOWN_METHODS.has(method)) {
        logger.infoMade('request', { requestId, method, route, status, durationMs }, { userId });
      } else {
        logger.info('request', { requestId, method, route, status, durationMs, userId });
      }
      observe?.(method, route, status, ms / 1000);
    };
    // From the network the line is made once the answer is on its way: the client need not wait
    // for it (bench/mcp/README.md, sess37). Its figures are those of now either way.
    if (outgoing === undefined) written();
    else outgoing.afterSent(written);
  };
}

/**
 * Sets `X-Request-Id` on an answer given in process, copying a response whose headers are
 * immutable.
 */
function answerRequestId(c: Parameters<MiddlewareHandler<AppEnv>>[0], requestId: string): void {
  try {
    c.res.headers.set(REQUEST_ID_HEADER, requestId);
  } catch {
    // A response taken from fetch() (a proxied answer) has immutable headers.
    const copy = new Response(c.res.body, c.res);
    copy.headers.set(REQUEST_ID_HEADER, requestId);
    c.res = undefined;
    c.res = copy;
  }
}
