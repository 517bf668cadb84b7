import type { Hono } from 'hono';
import type { AppContext, AppEnv } from './app-env.js';
import { errorResponse, HttpError } from './errors.js';
import { Redactor } from './redact.js';

/**
 * Scrubs token shapes from the path a 404 repeats: a client that puts its endpoint token in a
 * path the gateway has no route for (`/mcp/<token>/`) does not get it back in the error body,
 * where clients and proxies log it.
 */
const tokenShapes = new Redactor();

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

/** Paths that are API, never pages: they answer JSON whatever the client accepts. */
const API_PATHS = /^\/(api|mcp|\.well-known)(\/|$)/;

/**
 * Whether a 404 should be a page: a browser (a GET that accepts HTML, as address-bar navigation
 * sends) asking for something outside the API.
 */
function wantsPage(c: AppContext): boolean {
  if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return false;
  if (API_PATHS.test(c.req.path)) return false;
  return (c.req.header('accept') ?? '').includes('text/html');
}

/** Options of {@link notFoundHandler}. */
export interface NotFoundOptions {
  /** The 404 page for browsers (the web app's); without it every 404 is JSON. */
  page?: (c: AppContext) => Response | Promise<Response>;
}

/**
 * Answers unmatched requests in the JSON error shape: 405 with an `Allow` header when the path
 * exists for other methods, 404 otherwise (a path with a trailing slash included: it is not the
 * route's path). A 405 never names the request's own method in `Allow`. A browser asking for a
 * page outside `/api/`, `/mcp` and `/.well-known/` gets `options.page` instead of JSON.
 */
export function notFoundHandler(app: Hono<AppEnv>, options: NotFoundOptions = {}) {
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
    if (options.page !== undefined && wantsPage(c)) return options.page(c);
    return errorResponse(
      c,
      new HttpError('not_found', `No route ${c.req.method} ${tokenShapes.text(c.req.path)}`),
    );
  };
}
