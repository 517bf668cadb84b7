import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, type JWK } from 'jose';

/**
 * Test support: the RS256 key the local OAuth and OpenID servers of a test process sign with.
 *
 * Making a 2048-bit RSA key costs 30-250 ms of CPU, and the OAuth flow tests start one or two
 * such servers per test: on two cores that was the largest single cost of a SQLite sign-in test
 * (issue 35). So the key is made once per worker process and handed to every server, each under
 * a `kid` of its own: a verifier picks the key by the token's `kid` from the issuer's published
 * set (jose, better-auth, the gateway), so a token one server signed still finds no key at
 * another. A test that needs a key no server holds (a forged signature) makes its own.
 */

let made: Promise<JWK> | undefined;

/**
 * The process's private RS256 signing key as a JWK with `alg: 'RS256'` and a new random `kid`
 * (or `kid` when given), ready for oauth2-mock-server's `issuer.keys.add()` or oidc-provider's
 * `jwks`.
 *
 * @example
 * await server.issuer.keys.add(await testSigningKey());
 */
export async function testSigningKey(kid = randomBytes(16).toString('hex')): Promise<JWK> {
  made ??= generateKeyPair('RS256', { extractable: true }).then(({ privateKey }) =>
    exportJWK(privateKey),
  );
  return { ...(await made), kid, alg: 'RS256' };
}
