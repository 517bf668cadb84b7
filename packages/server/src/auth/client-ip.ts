import { getIPFromHeader, normalizeIP } from '@better-auth/core/utils/ip';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';

/**
 * The header better-auth reads the client address from. The gateway sets it on every request it
 * hands to better-auth (dropping any value the client sent), so rate limits key on an address
 * the client cannot choose.
 */
export const CLIENT_IP_HEADER = 'x-gateway-client-ip';

/**
 * The client's address, for rate limiting: the socket's peer, unless that peer is one of
 * `trustedProxies`, in which case `X-Forwarded-For` is walked from the right past trusted
 * proxies. A chain that names no address it can believe (a value that is not an IP where the
 * walk stops) gives the peer itself: never no address, or the request would not be counted at
 * all. Undefined only when the request did not come through a socket (in-process `fetch`).
 *
 * @example
 * const ip = clientAddress(c, ['10.0.0.0/8']);
 */
export function clientAddress(c: Context, trustedProxies: readonly string[]): string | undefined {
  const peer = socketAddress(c);
  if (peer === undefined) return undefined;
  const forwarded = c.req.header('x-forwarded-for');
  const chain = trustedProxies.length > 0 && forwarded ? `${forwarded}, ${peer}` : peer;
  // better-auth's own parser: the same normalisation (IPv6 /64, mapped IPv4) as its limiter.
  // Not its getIP(), which answers 127.0.0.1 for what it cannot resolve under NODE_ENV=test or
  // development and nothing otherwise.
  return getIPFromHeader(chain, { trustedProxies: [...trustedProxies] }) ?? normalizeIP(peer);
}

function socketAddress(c: Context): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    // Not served by @hono/node-server (tests call app.fetch directly): there is no socket.
    return undefined;
  }
}
