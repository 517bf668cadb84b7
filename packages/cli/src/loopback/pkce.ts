import { createHash, randomBytes } from 'node:crypto';

/** A PKCE pair (RFC 7636): the verifier stays here, the S256 challenge goes to the browser. */
export interface Pkce {
  verifier: string;
  challenge: string;
}

/**
 * A fresh PKCE pair: a 64-character base64url verifier (48 random bytes) and its S256
 * challenge, `BASE64URL(SHA256(verifier))`.
 *
 * @example
 * const { verifier, challenge } = createPkce();
 */
export function createPkce(): Pkce {
  const verifier = randomBytes(48).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** An unguessable `state` for one loopback flow (128 random bits, base64url). */
export function createState(): string {
  return randomBytes(16).toString('base64url');
}
