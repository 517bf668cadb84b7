import { isIP } from 'node:net';
import { getIPFromHeader, normalizeIP } from '@better-auth/core/utils/ip';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import { Refusal } from '../errors/refusal.js';
import type { ServerLogger } from '../http/logger.js';

/**
 * The header better-auth reads the client address from. The gateway sets it on every request it
 * hands to better-auth (dropping any value the client sent), so rate limits key on an address
 * the client cannot choose.
 */
export const CLIENT_IP_HEADER = 'x-gateway-client-ip';

/** The most of an unreadable chain a warning quotes. */
const QUOTED_CHAIN_CHARS = 200;

/**
 * The client's address, for rate limiting: the socket's peer, unless that peer is one of
 * `trustedProxies`, in which case `X-Forwarded-For` is walked from the right past trusted
 * proxies. Each hop may be an address (`203.0.113.7`, `2001:db8::1`), an address with a port
 * (`203.0.113.7:4711`) or a bracketed IPv6 address with or without one (`[2001:db8::1]:4711`).
 * When every hop is trusted, the farthest one is the client. Undefined only when the request did
 * not come through a socket (in-process `fetch`).
 *
 * @throws Refusal `bad_request` when the walk reaches a hop it cannot read: whoever sent it is
 *   unknown, and charging the proxy instead would let one client's failures lock out every
 *   other client behind it. With `logger`, a warning names the peer and the chain.
 * @example
 * const ip = clientAddress(c, ['10.0.0.0/8'], logger);
 */
export function clientAddress(
  c: Context,
  trustedProxies: readonly string[],
  logger?: ServerLogger,
): string | undefined {
  const peer = socketAddress(c);
  if (peer === undefined) return undefined;
  const forwarded = c.req.header('x-forwarded-for');
  const resolved = resolveClient(peer, trustedProxies.length > 0 ? forwarded : undefined, [
    ...trustedProxies,
  ]);
  if (resolved !== undefined) return resolved;
  logger?.warn('unreadable X-Forwarded-For from a trusted proxy; request refused', {
    requestId: c.get('requestId'),
    peer,
    forwardedFor: forwarded?.slice(0, QUOTED_CHAIN_CHARS),
  });
  throw new Refusal(
    'bad_request',
    'The client address your proxy forwarded (X-Forwarded-For) cannot be read',
  );
}

/**
 * The client named by `forwarded` (the `X-Forwarded-For` value) as seen from `peer`, or
 * undefined when the walk reaches a hop it cannot read.
 */
export function resolveClient(
  peer: string,
  forwarded: string | undefined,
  trustedProxies: string[],
): string | undefined {
  const hops = [...(forwarded ?? '').split(','), peer].map((hop) => hop.trim()).filter(Boolean);
  let farthest: string | undefined;
  for (let i = hops.length - 1; i >= 0; i--) {
    const address = hopAddress(hops[i] ?? '');
    if (address === undefined) return undefined;
    // better-auth's own parser and normalisation (IPv6 /64, mapped IPv4), as its limiter keys.
    // For one address it answers nothing exactly when that address is a trusted proxy.
    const untrusted = getIPFromHeader(address, { trustedProxies });
    if (untrusted !== null) return untrusted;
    farthest = address;
  }
  return farthest === undefined ? undefined : normalizeIP(farthest);
}

/** The address of one hop: plain, `ipv4:port`, or `[ipv6]` with or without `:port`. */
function hopAddress(hop: string): string | undefined {
  if (isIP(hop) !== 0) return hop;
  const bracketed = /^\[([0-9a-f:.]+)\](?::\d{1,5})?$/i.exec(hop);
  if (bracketed?.[1] !== undefined) return isIP(bracketed[1]) === 6 ? bracketed[1] : undefined;
  const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(hop);
  if (withPort?.[1] !== undefined && isIP(withPort[1]) === 4) return withPort[1];
  return undefined;
}

/**
 * Whether the request's socket peer is one of `trustedProxies`: what it forwards (a client's
 * address, a request id, a trace context) may be believed. False for an in-process request.
 */
export function fromTrustedProxy(c: Context, trustedProxies: readonly string[]): boolean {
  if (trustedProxies.length === 0) return false;
  const peer = socketAddress(c);
  if (peer === undefined || isIP(peer) === 0) return false;
  // For one address better-auth's parser answers nothing exactly when it is a trusted proxy.
  return getIPFromHeader(peer, { trustedProxies: [...trustedProxies] }) === null;
}

function socketAddress(c: Context): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    // Not served by the node adapter (tests call app.fetch directly): there is no socket.
    return undefined;
  }
}
