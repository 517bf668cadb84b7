import { errors, type JWTPayload, type JWTVerifyGetKey, jwtVerify } from 'jose';

/**
 * Signature algorithms an ID token may use: asymmetric only. `none` is never accepted, and the
 * HMAC family is left out because it would make the client secret a signing key.
 */
export const ID_TOKEN_ALGORITHMS: readonly string[] = Object.freeze([
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
]);

/** Clock skew allowed on `exp` and `iat` (openid-client and better-auth use the same). */
const CLOCK_TOLERANCE_SECONDS = 30;
/** An ID token is fetched right after the code exchange; one issued long ago is not that one. */
const MAX_TOKEN_AGE_SECONDS = 600;

/** Why an ID token was refused. */
export type IdTokenFailure =
  | 'malformed'
  | 'algorithm'
  | 'signature'
  | 'issuer'
  | 'audience'
  | 'authorized_party'
  | 'expired'
  | 'issued_at'
  | 'nonce'
  | 'claims';

/** The ID token failed OIDC Core 3.1.3.7 validation; `reason` says which check. */
export class IdTokenError extends Error {
  override readonly name = 'IdTokenError';
  constructor(
    readonly reason: IdTokenFailure,
    message: string,
  ) {
    super(message);
  }
}

/** What a valid ID token must say. */
export interface IdTokenExpectations {
  /** The issuer identifier(s) `iss` must equal. */
  issuer: string | readonly string[];
  /** The client id: in `aud`, and `azp` when present. */
  clientId: string;
  /** The nonce sent in the authorization request; `nonce` must equal it. */
  nonce?: string | undefined;
  /** Algorithms the provider signs with (its metadata), narrowed to {@link ID_TOKEN_ALGORITHMS}. */
  algorithms?: readonly string[] | undefined;
}

/**
 * Verifies an ID token per OIDC Core 3.1.3.7: signature against `keys` with an allowed algorithm,
 * `iss`, `aud` containing the client id, `azp` (required with several audiences, and equal to
 * the client id when present), `exp`, `iat` (present, not in the future, not older than ten
 * minutes) and `nonce` when one was sent. Returns the claims.
 *
 * @throws IdTokenError naming the failed check.
 * @example
 * const claims = await verifyIdToken(token, createRemoteJWKSet(new URL(jwksUri)), {
 *   issuer: 'https://idp.example.com', clientId: 'gateway', nonce,
 * });
 */
export async function verifyIdToken(
  token: string,
  keys: JWTVerifyGetKey,
  expected: IdTokenExpectations,
): Promise<JWTPayload> {
  const advertised = expected.algorithms?.filter((alg) => ID_TOKEN_ALGORITHMS.includes(alg));
  // A provider advertising no asymmetric algorithm still signs with RS256 (OIDC Core 15.1).
  const algorithms = advertised && advertised.length > 0 ? advertised : ['RS256'];
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, keys, {
      issuer: typeof expected.issuer === 'string' ? expected.issuer : [...expected.issuer],
      audience: expected.clientId,
      algorithms,
      requiredClaims: ['iss', 'sub', 'aud', 'exp', 'iat'],
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      maxTokenAge: MAX_TOKEN_AGE_SECONDS,
    }));
  } catch (error) {
    throw toIdTokenError(error);
  }
  const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  if (payload.azp !== undefined && payload.azp !== expected.clientId) {
    throw new IdTokenError('authorized_party', 'the ID token was issued to another client (azp)');
  }
  if (audiences.length > 1 && payload.azp === undefined) {
    throw new IdTokenError('authorized_party', 'the ID token has several audiences and no azp');
  }
  if (expected.nonce !== undefined && payload.nonce !== expected.nonce) {
    throw new IdTokenError('nonce', 'the ID token does not answer this sign-in (nonce)');
  }
  return payload;
}

function toIdTokenError(error: unknown): IdTokenError {
  if (error instanceof errors.JWTExpired) {
    return new IdTokenError('expired', 'the ID token has expired');
  }
  if (error instanceof errors.JWTClaimValidationFailed) {
    switch (error.claim) {
      case 'iss':
        return new IdTokenError('issuer', 'the ID token comes from another issuer');
      case 'aud':
        return new IdTokenError('audience', 'the ID token is for another client (aud)');
      case 'iat':
        return new IdTokenError('issued_at', 'the ID token was not issued just now (iat)');
      default:
        return new IdTokenError('claims', `the ID token's ${error.claim} claim is not valid`);
    }
  }
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) {
    return new IdTokenError('algorithm', 'the ID token is signed with an algorithm not allowed');
  }
  if (
    error instanceof errors.JWSSignatureVerificationFailed ||
    error instanceof errors.JWKSNoMatchingKey ||
    error instanceof errors.JWKSMultipleMatchingKeys
  ) {
    return new IdTokenError('signature', 'the ID token signature does not verify');
  }
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JOSEError) {
    return new IdTokenError('signature', `the ID token could not be verified (${error.code})`);
  }
  return new IdTokenError('malformed', 'the ID token is not a signed JWT');
}
