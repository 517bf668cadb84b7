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
  return new RegExp(`^${escaped}/?$`);
}

/**
 * Answers unmatched requests in the JSON error shape: 405 with an `Allow` header when the path
 * exists for other methods, 404 otherwise.
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
    if (allowed.length > 0) {
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
