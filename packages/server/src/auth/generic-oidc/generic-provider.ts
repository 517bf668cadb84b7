import { APIError } from 'better-auth/api';
import type { OAuth2Tokens, OAuthProvider } from 'better-auth/oauth2';
import {
  createAuthorizationURL,
  parseStringBoolean,
  refreshAccessToken,
  validateAuthorizationCode,
} from 'better-auth/oauth2';
import { createRemoteJWKSet, type JWTVerifyGetKey } from 'jose';
import type { ServerLogger } from '../../http/logger.js';
import { createDiscovery, IdTokenError, verifyIdToken } from '../../identity/oidc/index.js';
import { type OutageLog, providerUnreachableText } from '../outage-log.js';
import { currentCallback, refuseCallback } from './callback-context.js';
import type { GenericProviderConfig } from './resolve-provider.js';
import type { Profile } from './specs.js';

/** A generic provider's endpoints and keys, once known. */
interface Resolved {
  authorizationUrl: string;
  tokenUrl: string;
  userInfoUrl?: string | undefined;
  /** Set for OpenID providers. */
  idTokens?: { keys: JWTVerifyGetKey; issuers: string[]; algorithms?: string[] | undefined };
  tokenAuth: 'basic' | 'post';
  /** RFC 9207: the provider puts `iss` on its authorization responses. */
  issParameter: boolean;
}

/**
 * better-auth error code of a sign-in or link that could not start because the provider's
 * discovery or endpoints are unreachable (answered 503).
 */
export const PROVIDER_UNAVAILABLE = 'PROVIDER_UNAVAILABLE';

/**
 * The provider's configuration cannot be completed (discovery failing, an endpoint missing), or
 * it could not be reached. Token vending tells it by name (this module loads with better-auth)
 * and words it as an outage, not as an expired sign-in.
 */
export class ProviderUnavailableError extends Error {
  override readonly name = 'ProviderUnavailableError';
}

/**
 * better-auth provider for a generic provider: every method first resolves the endpoints, through
 * discovery when an issuer is configured (retried with backoff, never remembered as a failure,
 * so a provider that was down at startup works as soon as it is back). For an OpenID provider
 * every ID token is verified (signature, `iss`, `aud`, `azp`, `exp`, `iat`, `nonce`) before its
 * claims are used, and the callback's `iss` (RFC 9207) must name the issuer.
 */
export function createGenericProvider(
  config: GenericProviderConfig,
  logger: ServerLogger,
  outages: OutageLog,
): OAuthProvider {
  const discovery =
    config.discoverFrom === undefined
      ? undefined
      : createDiscovery({ issuer: config.discoverFrom });
  const openid = config.issuers !== undefined;
  let keysFor: { url: string; keys: JWTVerifyGetKey } | undefined;
  const keys = (url: string) => {
    if (keysFor?.url !== url) keysFor = { url, keys: createRemoteJWKSet(new URL(url)) };
    return keysFor.keys;
  };

  async function resolve(): Promise<Resolved> {
    const metadata =
      discovery === undefined
        ? undefined
        : await discovery.metadata().catch((error: unknown) => {
            throw new ProviderUnavailableError(
              error instanceof Error ? error.message : String(error),
              { cause: error },
            );
          });
    const authorizationUrl = config.authorizationUrl ?? metadata?.authorization_endpoint;
    const tokenUrl = config.tokenUrl ?? metadata?.token_endpoint;
    const jwksUrl = config.jwksUrl ?? metadata?.jwks_uri;
    if (authorizationUrl === undefined || tokenUrl === undefined) {
      throw new ProviderUnavailableError(`${config.id}: no authorization or token endpoint`);
    }
    if (openid && jwksUrl === undefined) {
      throw new ProviderUnavailableError(`${config.id}: no JWKS to verify ID tokens with`);
    }
    const methods = metadata?.token_endpoint_auth_methods_supported;
    // RFC 8414 2: an absent list means client_secret_basic.
    const metadataAuth =
      methods === undefined || methods.includes('client_secret_basic') ? 'basic' : 'post';
    return {
      authorizationUrl,
      tokenUrl,
      userInfoUrl: config.userInfoUrl ?? metadata?.userinfo_endpoint,
      ...(openid && jwksUrl !== undefined
        ? {
            idTokens: {
              keys: keys(jwksUrl),
              issuers: metadata ? [metadata.issuer] : [...(config.issuers ?? [])],
              algorithms: metadata?.id_token_signing_alg_values_supported,
            },
          }
        : {}),
      tokenAuth: config.tokenAuth ?? (metadata === undefined ? 'basic' : metadataAuth),
      issParameter: metadata?.authorization_response_iss_parameter_supported === true,
    };
  }

  async function resolveOrRefuse(): Promise<Resolved> {
    try {
      return await resolve();
    } catch (error) {
      refuseCallback('provider_unavailable');
      outages.report(config.id, error instanceof Error ? error.message : String(error));
      throw error;
    }
  }

  const options = { clientId: config.clientId, clientSecret: config.clientSecret };

  async function userInfo(accessToken: string | undefined, url: string | undefined) {
    if (accessToken === undefined || url === undefined) return null;
    const response = await fetch(url, {
      headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
      signal: AbortSignal.timeout(10_000),
    });
    if (!response.ok) return null;
    const body: unknown = await response.json().catch(() => null);
    return typeof body === 'object' && body !== null ? (body as Profile) : null;
  }

  const toUser = (profile: Profile) => ({
    email: typeof profile.email === 'string' ? profile.email : undefined,
    name: typeof profile.name === 'string' ? profile.name : undefined,
    image: typeof profile.picture === 'string' ? profile.picture : undefined,
    emailVerified: parseStringBoolean(profile.email_verified) ?? false,
  });

  const provider: OAuthProvider = {
    id: config.id,
    name: config.name,
    requiresIdTokenNonce: openid,
    // Sign-in with a bare ID token (`idToken` in the request body) is not offered.
    options: { disableIdTokenSignIn: true },
    accountSubject: ({ profile }) => {
      const subject = config.subject(profile as Profile);
      return typeof subject === 'number' ? subject : String(subject ?? '');
    },
    async createAuthorizationURL(data) {
      let resolved: Resolved;
      try {
        resolved = await resolve();
      } catch (error) {
        outages.report(config.id, error instanceof Error ? error.message : String(error));
        // The provider is down, not the gateway: a 503 the pages word, not a 500 `internal`.
        throw new APIError('SERVICE_UNAVAILABLE', {
          code: PROVIDER_UNAVAILABLE,
          message: providerUnreachableText(config.name),
        });
      }
      const { prompt, access_type: accessType, ...params } = config.authorizationParams;
      return createAuthorizationURL({
        id: config.id,
        options: { ...options, redirectURI: config.redirectURI },
        authorizationEndpoint: resolved.authorizationUrl,
        state: data.state,
        codeVerifier: data.codeVerifier,
        scopes: config.scopes,
        redirectURI: data.redirectURI,
        prompt,
        accessType,
        nonce: openid ? data.idTokenNonce : undefined,
        additionalParams: { ...params, ...data.additionalParams },
        loginHint: data.loginHint,
      });
    },
    async validateAuthorizationCode(data) {
      const resolved = await resolveOrRefuse();
      const callback = currentCallback();
      const iss = callback?.query.get('iss') ?? null;
      const issuers = resolved.idTokens?.issuers;
      // RFC 9207 2.4: checked before the code goes anywhere, so it never reaches a mixed-up server.
      if (iss !== null && issuers !== undefined && !issuers.includes(iss)) {
        refuseCallback('issuer_mismatch');
        logger.warn('an OAuth callback named another issuer', { providerId: config.id });
        return null;
      }
      if (iss === null && resolved.issParameter && callback !== undefined) {
        refuseCallback('issuer_missing');
        logger.warn('an OAuth callback came without the iss its provider always sends', {
          providerId: config.id,
        });
        return null;
      }
      return validateAuthorizationCode({
        code: data.code,
        codeVerifier: data.codeVerifier,
        redirectURI: data.redirectURI,
        options: { ...options, redirectURI: config.redirectURI },
        tokenEndpoint: resolved.tokenUrl,
        authentication: resolved.tokenAuth,
      });
    },
    async getUserInfo(tokens: OAuth2Tokens & { expectedIdTokenNonce?: string | undefined }) {
      const resolved = await resolveOrRefuse();
      let claims: Profile | undefined;
      if (resolved.idTokens !== undefined) {
        if (tokens.idToken === undefined) {
          if (config.scopes.includes('openid')) {
            refuseCallback('id_token_invalid');
            logger.warn('an OpenID provider answered without an ID token', {
              providerId: config.id,
            });
            return null;
          }
        } else {
          try {
            claims = await verifyIdToken(tokens.idToken, resolved.idTokens.keys, {
              issuer: resolved.idTokens.issuers,
              clientId: config.clientId,
              nonce: tokens.expectedIdTokenNonce,
              algorithms: resolved.idTokens.algorithms,
            });
          } catch (error) {
            refuseCallback('id_token_invalid');
            logger.warn('an ID token was refused', {
              providerId: config.id,
              reason: error instanceof IdTokenError ? error.reason : 'unknown',
              error: error instanceof Error ? error.message : String(error),
            });
            return null;
          }
        }
      }
      if (config.identity !== undefined) {
        if (tokens.accessToken === undefined) return null;
        const found = await config.identity(tokens.accessToken);
        if (found === null) return null;
        const { profile, ...user } = found;
        return { user, data: profile };
      }
      let profile: Profile | null =
        claims !== undefined && typeof claims.email === 'string' ? claims : null;
      if (profile === null) {
        profile = await userInfo(tokens.accessToken, resolved.userInfoUrl);
        if (profile === null) return null;
        // OIDC Core 5.3.4: userinfo about someone else than the ID token is not used.
        if (claims !== undefined && String(profile.sub) !== claims.sub) return null;
        if (claims !== undefined) profile = { ...claims, ...profile };
      }
      return { user: toUser(profile), data: profile };
    },
    async refreshAccessToken(refreshToken) {
      const resolved = await resolve();
      try {
        return await refreshAccessToken({
          refreshToken,
          options,
          tokenEndpoint: resolved.tokenUrl,
          authentication: resolved.tokenAuth,
        });
      } catch (error) {
        // Not reached at all (refused connection, DNS): an outage. An answer, even an error
        // one, is the provider's to describe (token vending tells refusals from outages).
        if (error instanceof TypeError) {
          throw new ProviderUnavailableError(`${config.id}: ${error.message}`, { cause: error });
        }
        throw error;
      }
    },
  };
  return provider;
}
