import type { Hono } from 'hono';
import type { AppContext, AppEnv } from './app-env.js';
import { errorResponse, HttpError } from './errors.js';

function pathPattern(path: string): RegExp {
  const escaped = path
    .split('/')
    .map((segment) => {
      if (segment.startsWith(':')) return '[^/]+';
      if (segment === '*') return '.*';
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  // Exactly the route's path: `/api/policy/roles/` is not `/api/policy/roles` (routes are strict),
  // so it is a 404, never a 405 whose `Allow` names the very method that was used.
  return new RegExp(`^${escaped}$`);
}

/**
 * Answers unmatched requests in the JSON error shape: 405 with an `Allow` header when the path
 * exists for other methods, 404 otherwise (a path with a trailing slash included: it is not the
 * route's path). A 405 never names the request's own method in `Allow`.
 */
export function notFoundHandler(app: Hono<AppEnv>) {
  let routes: { pattern: RegExp; method: string }[] | undefined;
  return (c: AppContext) => {
    routes ??= app.routes
      .filter((route) => route.method !== 'ALL' && !route.path.endsWith('*'))
      .map((route) => ({ pattern: pathPattern(route.path), method: route.method }));
    const allowed = [
      ...new Set(routes.filter((route) => route.pattern.test(c.req.path)).map((r) => r.method)),
    ];
    // A route of this method that matched the path yet let the request fall through (a handler
    // calling next()) is not a wrong method.
    if (allowed.length > 0 && !allowed.includes(c.req.method)) {
      return errorResponse(
        c,
        new HttpError(
          'method_not_allowed',
          `${c.req.method} is not allowed here; use ${allowed.join(', ')}`,
        ),
        { Allow: allowed.join(', ') },
      );
    }
    return errorResponse(c, new HttpError('not_found', `No route ${c.req.method} ${c.req.path}`));
  };
}
