import type { Handler, Hono, MiddlewareHandler } from 'hono';
import type { AppEnv } from './app-env.js';
import { type AnyRoute, routeHandler, routeKey } from './route.js';

/** A route mounted before its module loads: its method and its path, as Hono writes them. */
export type LazyRoute = readonly ['GET' | 'POST', string];

/** Mounts a group of routes on the app (or on the recorder `recordRoutes` hands it). */
export type MountRoutes = (app: Hono<AppEnv>) => void;

type AnyHandler = Handler<AppEnv> | MiddlewareHandler<AppEnv>;

/**
 * The handler of each route `mount` registers, by `"METHOD path"`, without adding it to a Hono
 * app: `mount` gets a recorder that keeps what its `get` and `post` are given, and hands anything
 * else to `app` (pages call the gateway's own API through `app.request`). A route with more than
 * one handler is a mistake to fix here, so it throws.
 *
 * @example
 * recordRoutes((recorder) => mountWebApp(recorder, services, authenticate), app).get('GET /tools');
 */
export function recordRoutes(mount: MountRoutes, app?: Hono<AppEnv>): Map<string, AnyHandler> {
  const recorded = new Map<string, AnyHandler>();
  const add =
    (method: LazyRoute[0]) =>
    (path: string, ...handlers: AnyHandler[]) => {
      const [handler] = handlers;
      if (handlers.length !== 1 || handler === undefined)
        throw new Error(`${method} ${path}: a lazily mounted route takes one handler`);
      recorded.set(`${method} ${path}`, handler);
      return recorder;
    };
  const own: Record<string, unknown> = { get: add('GET'), post: add('POST') };
  const recorder = new Proxy(app ?? ({} as Hono<AppEnv>), {
    get(target, property, receiver) {
      if (typeof property === 'string' && property in own) return own[property];
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  mount(recorder);
  return recorded;
}

/**
 * Registers `routes` on `app` now and loads the module that answers them with the first request
 * to one (issue 37: a start loads nothing its first answer does not need). Routing, `405`s, the
 * request log's route and the not-found handler see the same routes as an eager mount, since the
 * same paths are registered in the same place; `load` resolves to the mount function, which runs
 * once against `recordRoutes`' recorder. A list that names a route the mount does not make
 * throws on that route's first request; each group's test compares both lists.
 *
 * @example
 * mountLazily(app, WEB_ROUTES, async () => {
 *   const { mountWebApp } = await import('../web/index.js');
 *   return (recorder) => mountWebApp(recorder, services, authenticate);
 * });
 */
export function mountLazily(
  app: Hono<AppEnv>,
  routes: readonly LazyRoute[],
  load: () => Promise<MountRoutes>,
): void {
  let handlers: Promise<Map<string, AnyHandler>> | undefined;
  const loaded = () => {
    handlers ??= load().then(
      (mount) => recordRoutes(mount, app),
      (error: unknown) => {
        handlers = undefined;
        throw error;
      },
    );
    return handlers;
  };
  for (const [method, path] of routes) {
    const key = `${method} ${path}`;
    app.on(method, path, async (c, next) => {
      const handler = (await loaded()).get(key);
      if (handler === undefined) throw new Error(`${key} is listed as lazy but not mounted`);
      return (handler as MiddlewareHandler<AppEnv>)(c, next);
    });
  }
}

/**
 * Registers the `/api` routes named by `keys` (`"GET /api/connections"`, in the order they are
 * matched) on `app` now, and builds them with the first request to one
 * (issue 37: building every route's request and response schemas was ~8% of a start's work).
 * Routing, `405`s, the request log's route and the not-found handler see the same routes as an
 * eager mount. `load` resolves to the routes, once; a key it does not build throws on that route's
 * first request (the list's test compares both).
 *
 * @example
 * mountRoutesLazily(app, API_ROUTES, () => import('./api.js').then(({ apiRoutes }) => apiRoutes()));
 */
export function mountRoutesLazily(
  app: Hono<AppEnv>,
  keys: readonly string[],
  load: () => Promise<readonly AnyRoute[]>,
): void {
  let handlers: Promise<Map<string, Handler<AppEnv>>> | undefined;
  const loaded = () => {
    handlers ??= load().then(
      (routes) => new Map(routes.map((route) => [routeKey(route), routeHandler(route)])),
      (error: unknown) => {
        handlers = undefined;
        throw error;
      },
    );
    return handlers;
  };
  for (const key of keys) {
    const [method = '', path = ''] = key.split(' ');
    app.on(method, path, async (c, next) => {
      const handler = (await loaded()).get(key);
      if (handler === undefined) throw new Error(`${key} is listed as an API route but not built`);
      return handler(c, next);
    });
  }
}
