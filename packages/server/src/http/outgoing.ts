import type { Context } from 'hono';

/** What of Node's response a middleware may touch before the answer is written. */
export interface OutgoingHeaders {
  setHeader(name: string, value: string): unknown;
}

/**
 * Node's response of a request from the network (`@hono/node-server` binds it as `outgoing`),
 * undefined for one handed over in process (`gateway.fetch()`). A header set on it goes out with
 * whatever answer the app gives, and costs nothing; set on Hono's response instead, it makes the
 * adapter build a web `Headers` object for an answer whose headers were a plain object, and then
 * turn them back into Node's (bench/mcp/README.md).
 */
export function outgoingOf(c: Context): OutgoingHeaders | undefined {
  const env: unknown = c.env;
  if (typeof env !== 'object' || env === null || !('outgoing' in env)) return undefined;
  const { outgoing } = env;
  return typeof outgoing === 'object' &&
    outgoing !== null &&
    'setHeader' in outgoing &&
    typeof outgoing.setHeader === 'function'
    ? (outgoing as OutgoingHeaders)
    : undefined;
}
