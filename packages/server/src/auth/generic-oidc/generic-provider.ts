import { APIError } from 'better-auth/api';
import type { OAuth2Tokens, OAuthProvider } from 'better-auth/oauth2';
import {
  createAuthorizationURL,
  parseStringBoolean,
  refreshAccessToken,
  validateAuthorizationCode,
} from 'better-auth/oauth2';
import type { ServerLogger } from '../../http/logger.js';
import { IdTokenError, verifyIdToken } from '../../identity/oidc/index.js';
import { type OutageLog, providerUnreachableText } from '../outage-log.js';
import { currentCallback, refuseCallback } from './callback-context.js';
import {
  type EndpointResolver,
  endpointResolver,
  type ProviderEndpoints,
  ProviderUnavailableError,
} from './endpoints.js';
import type { GenericProviderConfig } from './resolve-provider.js';
import type { Profile } from './specs.js';

/**
 * better-auth error code of a sign-in or link that could not start because the provider's
 * discovery or endpoints are unreachable (answered 503).
 */
export const PROVIDER_UNAVAILABLE = 'PROVIDER_UNAVAILABLE';

/** What the steps of one generic provider share. */
interface Generic {
  config: GenericProviderConfig;
  logger: ServerLogger;
  outages: OutageLog;
  endpoints: EndpointResolver;
}

type AuthorizationRequest = Parameters<OAuthProvider['createAuthorizationURL']>[0];
type CodeCallback = Parameters<OAuthProvider['validateAuthorizationCode']>[0];
type SignInTokens = OAuth2Tokens & { expectedIdTokenNonce?: string | undefined };

/**
 * better-auth provider for a generic provider: every method first resolves the endpoints, through
 * discovery when an issuer is configured (retried with backoff, never remembered as a failure,
 * so a provider that was down at startup works as soon as it is back). For an OpenID provider
 * every ID token is verified (signature, `iss`, `aud`, `azp`, `exp`, `iat`, `nonce`) before its
 * claims are used, and the callback's `iss` (RFC 9207) must name the issuer.
 *
 * @example
 * socialProviders.push(createGenericProvider(resolveGenericProvider(...), logger, outages));
 */
export function createGenericProvider(
  config: GenericProviderConfig,
  logger: ServerLogger,
  outages: OutageLog,
): OAuthProvider {
  const generic: Generic = {
    config,
    logger,
    outages,
    endpoints: endpointResolver(config, outages),
  };
  return {
    id: config.id,
    name: config.name,
    requiresIdTokenNonce: config.issuers !== undefined,
    // Sign-in with a bare ID token (`idToken` in the request body) is not offered.
    options: { disableIdTokenSignIn: true },
    accountSubject: ({ profile }) => {
      const subject = config.subject(profile as Profile);
      return typeof subject === 'number' ? subject : String(subject ?? '');
    },
    createAuthorizationURL: (data) => authorizationUrl(generic, data),
    validateAuthorizationCode: (data) => exchangeCode(generic, data),
    getUserInfo: (tokens: SignInTokens) => signedInUser(generic, tokens),
    refreshAccessToken: (refreshToken) => refreshTokens(generic, refreshToken),
  };
}

/** The client's credentials, as better-auth's helpers take them. */
const clientOf = (config: GenericProviderConfig) => ({
  clientId: config.clientId,
  clientSecret: config.clientSecret,
});

/** Where the browser goes to sign in; a provider that cannot be reached is a 503. */
async function authorizationUrl(generic: Generic, data: AuthorizationRequest): Promise<URL> {
  const { config, outages } = generic;
  let endpoints: ProviderEndpoints;
  try {
    endpoints = await generic.endpoints.resolve();
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
    options: { ...clientOf(config), redirectURI: config.redirectURI },
    authorizationEndpoint: endpoints.authorizationUrl,
    state: data.state,
    codeVerifier: data.codeVerifier,
    scopes: config.scopes,
    redirectURI: data.redirectURI,
    prompt,
    accessType,
    nonce: config.issuers !== undefined ? data.idTokenNonce : undefined,
    additionalParams: { ...params, ...data.additionalParams },
    loginHint: data.loginHint,
  });
}

/** The callback's code exchanged for tokens, once its `iss` is checked; null when refused. */
async function exchangeCode(generic: Generic, data: CodeCallback) {
  const { config } = generic;
  const endpoints = await generic.endpoints.resolveOrRefuse();
  if (!issuerMatches(generic, endpoints)) return null;
  return validateAuthorizationCode({
    code: data.code,
    codeVerifier: data.codeVerifier,
    redirectURI: data.redirectURI,
    options: { ...clientOf(config), redirectURI: config.redirectURI },
    tokenEndpoint: endpoints.tokenUrl,
    authentication: endpoints.tokenAuth,
  });
}

/**
 * Whether the callback's `iss` (RFC 9207) names the provider's issuer, or is absent from a
 * provider that never sends it; a mismatch refuses the callback.
 */
function issuerMatches({ config, logger }: Generic, endpoints: ProviderEndpoints): boolean {
  const callback = currentCallback();
  const iss = callback?.query.get('iss') ?? null;
  const issuers = endpoints.idTokens?.issuers;
  // RFC 9207 2.4: checked before the code goes anywhere, so it never reaches a mixed-up server.
  if (iss !== null && issuers !== undefined && !issuers.includes(iss)) {
    refuseCallback('issuer_mismatch');
    logger.warn('an OAuth callback named another issuer', { providerId: config.id });
    return false;
  }
  if (iss === null && endpoints.issParameter && callback !== undefined) {
    refuseCallback('issuer_missing');
    logger.warn('an OAuth callback came without the iss its provider always sends', {
      providerId: config.id,
    });
    return false;
  }
  return true;
}

/** The signed-in user and their profile, from the ID token and userinfo; null when refused. */
async function signedInUser(generic: Generic, tokens: SignInTokens) {
  const { config } = generic;
  const endpoints = await generic.endpoints.resolveOrRefuse();
  const verified = await verifiedClaims(generic, endpoints, tokens);
  if (!verified.ok) return null;
  if (config.identity !== undefined) {
    if (tokens.accessToken === undefined) return null;
    const found = await config.identity(tokens.accessToken);
    if (found === null) return null;
    const { profile, ...user } = found;
    return { user, data: profile };
  }
  const profile = await profileOf(verified.claims, tokens.accessToken, endpoints.userInfoUrl);
  return profile === null ? null : { user: toUser(profile), data: profile };
}

/**
 * The ID token's claims once verified (none from a provider that is not OpenID, or sent no ID
 * token without being asked for one); `ok: false` when the callback was refused.
 */
async function verifiedClaims(
  { config, logger }: Generic,
  endpoints: ProviderEndpoints,
  tokens: SignInTokens,
): Promise<{ ok: true; claims: Profile | undefined } | { ok: false }> {
  if (endpoints.idTokens === undefined) return { ok: true, claims: undefined };
  if (tokens.idToken === undefined) {
    if (!config.scopes.includes('openid')) return { ok: true, claims: undefined };
    refuseCallback('id_token_invalid');
    logger.warn('an OpenID provider answered without an ID token', { providerId: config.id });
    return { ok: false };
  }
  try {
    const claims = await verifyIdToken(tokens.idToken, endpoints.idTokens.keys, {
      issuer: endpoints.idTokens.issuers,
      clientId: config.clientId,
      nonce: tokens.expectedIdTokenNonce,
      algorithms: endpoints.idTokens.algorithms,
    });
    return { ok: true, claims };
  } catch (error) {
    refuseCallback('id_token_invalid');
    logger.warn('an ID token was refused', {
      providerId: config.id,
      reason: error instanceof IdTokenError ? error.reason : 'unknown',
      error: error instanceof Error ? error.message : String(error),
    });
    return { ok: false };
  }
}

/**
 * The user's profile: the ID token's claims when they hold an email, else userinfo's answer
 * (merged over the claims, and only when it is about the same subject).
 */
async function profileOf(
  claims: Profile | undefined,
  accessToken: string | undefined,
  userInfoUrl: string | undefined,
): Promise<Profile | null> {
  if (claims !== undefined && typeof claims.email === 'string') return claims;
  const profile = await userInfo(accessToken, userInfoUrl);
  if (profile === null) return null;
  if (claims === undefined) return profile;
  // OIDC Core 5.3.4: userinfo about someone else than the ID token is not used.
  if (String(profile.sub) !== claims.sub) return null;
  return { ...claims, ...profile };
}

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

/** New tokens for `refreshToken`; an unreachable provider is a {@link ProviderUnavailableError}. */
async function refreshTokens({ config, endpoints }: Generic, refreshToken: string) {
  const resolved = await endpoints.resolve();
  try {
    return await refreshAccessToken({
      refreshToken,
      options: clientOf(config),
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
}
