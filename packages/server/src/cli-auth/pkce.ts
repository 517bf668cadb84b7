import { createHash } from 'node:crypto';
import { safeEqual } from '../secrets/index.js';

/** RFC 7636: a verifier is 43-128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
/** The S256 challenge: base64url (no padding) of a SHA-256 digest, 43 characters. */
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** Whether `challenge` looks like an S256 code challenge. */
export function isS256Challenge(challenge: string): boolean {
  return CHALLENGE.test(challenge);
}

/** The S256 challenge of `verifier`. */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/**
 * Whether `verifier` is well formed and its S256 challenge is `challenge` (compared in constant
 * time).
 *
 * @example
 * verifyPkce(body.code_verifier, stored.codeChallenge);
 */
export function verifyPkce(verifier: string, challenge: string): boolean {
  return VERIFIER.test(verifier) && safeEqual(s256(verifier), challenge);
}
