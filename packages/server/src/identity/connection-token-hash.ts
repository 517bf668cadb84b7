import { hashToken } from '../secrets/index.js';

/**
 * The SHA-256 of the token the last request on each connection presented, with that token: a
 * client sends the same token with every request on a kept-alive connection, and hashing it again
 * cost each MCP call ~6 k instructions (issue 37). Only the hash is kept beside the token: who owns
 * it is still looked up on every request (the token repository's cache, which a revocation or a
 * role change empties), so this cache cannot let a revoked token through. Weakly held by the
 * connection's socket: it goes with the connection, holds one token per connection (a proxy that
 * sends many users' requests on one connection replaces it), and is never listed or logged.
 */
const lastOnConnection = new WeakMap<object, { token: string; hash: string }>();

/**
 * The SHA-256 (hex) of `token`, as `hashToken` makes it, reused when the last request on
 * `connection` (a request's socket; undefined or null: none, hashed every time) presented the same token.
 * Compared in constant time: another user's request on the same connection (behind a proxy) must
 * not learn by timing how much of the kept token its own shares.
 *
 * @example
 * const hash = connectionTokenHash(incoming?.socket, token);
 */
export function connectionTokenHash(connection: object | null | undefined, token: string): string {
  // Node's message drops its socket (null) once destroyed: no connection to keep anything on.
  if (connection === undefined || connection === null) return hashToken(token);
  const last = lastOnConnection.get(connection);
  if (last !== undefined && sameText(last.token, token)) return last.hash;
  const hash = hashToken(token);
  lastOnConnection.set(connection, { token, hash });
  return hash;
}

/**
 * Whether `a` and `b` are the same text, in a time that depends on their lengths only (token
 * lengths are public: every token of a kind has the same).
 */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i += 1) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}
