import type { Context } from 'hono';

import { GatewayResponse } from './gateway-response.js';

/** What of Node's response a middleware may touch before the answer is written. */
export interface OutgoingHeaders {
  /** Adds a header to whatever answer is written (see {@link GatewayResponse.preset}). */
  preset(name: string, value: string): void;
  /**
   * Runs `work` once the answer has started going out (see {@link GatewayResponse.afterSent}); on
   * a response of another server, at once.
   */
  afterSent(work: () => void): void;
}

/**
 * Node's response of a request from the network (the node adapter binds it as `outgoing`),
 * undefined for one handed over in process (`gateway.fetch()`). A header preset on it goes out
 * with whatever answer the app gives, and costs next to nothing (`GatewayResponse`); set on Hono's
 * response instead, it makes the adapter build a web `Headers` object for an answer whose headers
 * were a plain object, and then turn them back into Node's (bench/mcp/README.md). A response of
 * another server than the gateway's own (an app mounted elsewhere) gets it through `setHeader`.
 */
export function outgoingOf(c: Context): OutgoingHeaders | undefined {
  const env: unknown = c.env;
  if (typeof env !== 'object' || env === null || !('outgoing' in env)) return undefined;
  const { outgoing } = env;
  if (outgoing instanceof GatewayResponse) return outgoing;
  return typeof outgoing === 'object' &&
    outgoing !== null &&
    'setHeader' in outgoing &&
    typeof outgoing.setHeader === 'function'
    ? {
        preset: (name, value) => {
          (outgoing as { setHeader(name: string, value: string): unknown }).setHeader(name, value);
        },
        afterSent: (work) => work(),
      }
    : undefined;
}
