/** The environment variables of sign-in and OAuth providers (see env.ts for the others). */
import { type Env, providerPrefix, value } from './env.js';
import { isLoopback } from './loopback.js';

/** `<PROVIDER>_CLIENT_ID` and `<PROVIDER>_CLIENT_SECRET`: both set enable an OAuth provider. */
export function oauthClient(
  env: Env,
  providerId: string,
): { clientId: string; clientSecret: string } | undefined {
  const prefix = providerPrefix(providerId);
  const clientId = value(env, `${prefix}_CLIENT_ID`);
  const clientSecret = value(env, `${prefix}_CLIENT_SECRET`);
  return clientId !== undefined && clientSecret !== undefined
    ? { clientId, clientSecret }
    : undefined;
}

/**
 * `<PROVIDER>_DISPLAY_NAME`: what a generic provider slot (`gcp`, `atlassian`, `slack`, `linear`)
 * is called on sign-in buttons, pages and messages, when it is pointed at another identity
 * provider ("Okta", "Corp SSO"). At most 60 characters, no control characters. Unset: the
 * product's name ("Google Cloud").
 *
 * @throws Error naming the variable when the value does not fit.
 */
export function oauthDisplayName(env: Env, providerId: string): string | undefined {
  const name = `${providerPrefix(providerId)}_DISPLAY_NAME`;
  const raw = value(env, name)?.trim();
  if (raw === undefined || raw === '') return undefined;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
  if (raw.length > 60 || /[\u0000-\u001f\u007f]/.test(raw)) {
    throw new Error(`${name} must be at most 60 characters, without control characters`);
  }
  return raw;
}

/** An upstream endpoint of an OAuth provider that the environment may override. */
export type OAuthEndpointName =
  | 'AUTHORIZATION_URL'
  | 'TOKEN_URL'
  | 'USERINFO_URL'
  | 'ISSUER_URL'
  | 'JWKS_URL';

/**
 * `<PROVIDER>_AUTHORIZATION_URL`, `<PROVIDER>_TOKEN_URL`, `<PROVIDER>_USERINFO_URL`: replace one
 * upstream endpoint of a generic OAuth provider (a self-hosted or regional deployment, or a local
 * OAuth server in tests). `<PROVIDER>_ISSUER_URL`: the OpenID issuer; its discovery document
 * supplies every endpoint not set explicitly, and ID tokens must come from it.
 * `<PROVIDER>_JWKS_URL`: the keys ID tokens are signed with. Unset: the provider's public
 * endpoints.
 */
export function oauthEndpoint(
  env: Env,
  providerId: string,
  endpoint: OAuthEndpointName,
): string | undefined {
  const name = `${providerPrefix(providerId)}_${endpoint}`;
  return checkedProviderUrl(name, value(env, name));
}

/**
 * `<PROVIDER>_SCOPES`: the scopes a generic OAuth provider asks for, space- or comma-separated,
 * replacing its defaults. Unset: the defaults (see docs/providers.md).
 */
export function oauthScopes(env: Env, providerId: string): string[] | undefined {
  const raw = value(env, `${providerPrefix(providerId)}_SCOPES`);
  if (raw === undefined) return undefined;
  const scopes = raw.split(/[\s,]+/).filter((scope) => scope !== '');
  return scopes.length > 0 ? scopes : undefined;
}

/** `MICROSOFT_TENANT_ID`: the Entra ID tenant users sign in from. Default `common` (any). */
export const microsoftTenantId = (env: Env): string | undefined =>
  value(env, 'MICROSOFT_TENANT_ID');

/**
 * `MICROSOFT_AUTHORITY`: the Entra ID sign-in host, for national clouds
 * (`https://login.microsoftonline.us`) or a local OIDC server in tests.
 * Default `https://login.microsoftonline.com`.
 */
export const microsoftAuthority = (env: Env): string | undefined =>
  checkedProviderUrl('MICROSOFT_AUTHORITY', value(env, 'MICROSOFT_AUTHORITY'));

/**
 * A sign-in provider's address as set: an `https:` URL (plain `http:` only to this machine, for a
 * local test server), without a user name or password. ID tokens, keys and the client secret
 * travel to it, so a plain-http address elsewhere would let anyone on the way sign in as anyone.
 *
 * @throws Error naming the variable (never its value, which may hold credentials).
 */
function checkedProviderUrl(name: string, raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  const problem =
    url === undefined
      ? 'is not a URL'
      : url.username !== '' || url.password !== ''
        ? 'must not hold a user name or password'
        : url.protocol === 'https:' || (url.protocol === 'http:' && isLoopback(url.hostname))
          ? undefined
          : 'must be an https:// URL (http:// only to this machine, for a local test server)';
  if (problem !== undefined) throw new Error(`${name} ${problem}`);
  return raw;
}
