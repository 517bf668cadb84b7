import type { Principal } from './principal.js';

/**
 * The key under which an in-process request carries the principal it acts for. A symbol no
 * request from the network can produce: the node adapter (`http/node-adapter/`) binds only
 * its own `incoming` and `outgoing` to a request's env.
 */
const ACTING_AS = Symbol('gateway.actingAs');

/**
 * The env of an in-process request made on behalf of an already authenticated principal (the
 * web app's pages calling the JSON API): the API acts for that principal without reading any
 * credential again.
 *
 * @example
 * await app.fetch(new Request(url), actingAs(principal));
 */
export function actingAs(principal: Principal): Record<symbol, Principal> {
  return { [ACTING_AS]: principal };
}

/** The principal an in-process request acts for, if it was made with {@link actingAs}. */
export function actingPrincipal(env: unknown): Principal | undefined {
  if (typeof env !== 'object' || env === null || !(ACTING_AS in env)) return undefined;
  return (env as Record<symbol, Principal>)[ACTING_AS];
}
