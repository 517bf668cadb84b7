import type { MiddlewareHandler } from 'hono';
import { ANONYMOUS, logIdentity } from '../identity/principal.js';
import type { AppEnv } from './app-env.js';
import type { ServerLogger } from './logger.js';

/**
 * Logs one line per request: method, route, status, duration and user id. The route is the
 * matched pattern (`/mcp/:token`), never the raw path, so tokens in URLs stay out of the log.
 */
export function requestLog(
  logger: ServerLogger,
  observe?: (method: string, route: string, status: number, seconds: number) => void,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    const requestId = crypto.randomUUID();
    c.set('requestId', requestId);
    c.set('principal', ANONYMOUS);
    await next();
    const matched = c.req.routePath;
    const route = matched === '/*' || matched === '*' ? '(unmatched)' : matched;
    const ms = performance.now() - started;
    const { status } = c.res;
    logger.info('request', {
      requestId,
      method: c.req.method,
      route,
      status,
      durationMs: Math.round(ms * 100) / 100,
      userId: logIdentity(c.get('principal')),
    });
    observe?.(c.req.method, route, status, ms / 1000);
  };
}
