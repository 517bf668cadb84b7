import { type Env, providerPrefix } from '../../config/env.js';
import { oauthEndpoint, oauthScopes } from '../../config/env-providers.js';
import {
  type ApiIdentity,
  GENERIC_PROVIDER_SPECS,
  type Profile,
  STANDARD_OIDC_SCOPES,
} from './specs.js';

/** How a generic provider runs, resolved from the environment once. */
export interface GenericProviderConfig {
  id: string;
  name: string;
  clientId: string;
  clientSecret: string;
  redirectURI: string;
  scopes: string[];
  /**
   * `builtin`: the provider's own service, its known endpoints and keys.
   * `issuer`: an OpenID provider named by `<P>_ISSUER_URL`; discovery fills what is not set.
   * `oauth2`: endpoints set by hand without an issuer: plain OAuth 2.0, identity from userinfo.
   */
  mode: 'builtin' | 'issuer' | 'oauth2';
  /** Endpoints known without discovery. */
  authorizationUrl?: string | undefined;
  tokenUrl?: string | undefined;
  userInfoUrl?: string | undefined;
  jwksUrl?: string | undefined;
  /** ID tokens must name one of these (OpenID modes). */
  issuers?: readonly string[] | undefined;
  /** The issuer whose discovery document supplies the missing endpoints. */
  discoverFrom?: string | undefined;
  /** Fixed for the built-in services; otherwise from the provider's metadata. */
  tokenAuth?: 'basic' | 'post' | undefined;
  authorizationParams: Readonly<Record<string, string>>;
  subject(profile: Profile): unknown;
  identity?: ((accessToken: string) => Promise<ApiIdentity | null>) | undefined;
  /** Settings that do not fit together, for the log. */
  warnings: string[];
}

/**
 * Resolves generic provider `id` from the environment. Pointed at another server (an issuer, or
 * authorization or token endpoint overrides) it is a standard provider: the service-specific
 * scopes, parameters and identity lookups of its built-in spec no longer apply. A social provider
 * (GitHub, ...) pointed elsewhere the same way becomes such a standard provider too (how `gateway
 * dev` points GitHub at its local demo OAuth server); otherwise it has no generic form here.
 *
 * Long because its three modes (built-in, issuer, plain OAuth 2.0) read best side by side.
 *
 * @example
 * resolveGenericProvider(env, { id: 'gcp', name: 'Google Cloud' }, client, callbackUrl);
 */
export function resolveGenericProvider(
  env: Env,
  provider: { id: string; name: string },
  client: { clientId: string; clientSecret: string },
  redirectURI: string,
): GenericProviderConfig | undefined {
  const spec = GENERIC_PROVIDER_SPECS[provider.id];
  const setting = (name: Parameters<typeof oauthEndpoint>[2]) =>
    oauthEndpoint(env, provider.id, name);
  const issuer = setting('ISSUER_URL');
  const authorizationUrl = setting('AUTHORIZATION_URL');
  const tokenUrl = setting('TOKEN_URL');
  const userInfoUrl = setting('USERINFO_URL');
  const jwksUrl = setting('JWKS_URL');
  const prefix = providerPrefix(provider.id);
  const base = { ...provider, ...client, redirectURI, warnings: [] as string[] };
  const overridden =
    issuer !== undefined || authorizationUrl !== undefined || tokenUrl !== undefined;

  if (!overridden) {
    // A social provider (no spec) runs as better-auth's own unless pointed elsewhere.
    if (spec === undefined) return undefined;
    return {
      ...base,
      mode: 'builtin',
      scopes: oauthScopes(env, provider.id) ?? [...spec.scopes],
      authorizationUrl: spec.authorizationUrl,
      tokenUrl: spec.tokenUrl,
      userInfoUrl: userInfoUrl ?? spec.userInfoUrl,
      jwksUrl: jwksUrl ?? spec.oidc?.jwksUrl,
      issuers: spec.oidc?.issuer,
      tokenAuth: spec.tokenAuth,
      authorizationParams: spec.authorizationParams ?? {},
      subject: spec.subject,
      // The service's own API, unless identity was pointed at a userinfo endpoint.
      identity: userInfoUrl === undefined ? spec.identity : undefined,
    };
  }

  const scopes = oauthScopes(env, provider.id) ?? [...STANDARD_OIDC_SCOPES];
  const consent: Readonly<Record<string, string>> = scopes.includes('offline_access')
    ? { prompt: 'consent' }
    : {};
  const standard = {
    ...base,
    scopes,
    authorizationUrl,
    tokenUrl,
    userInfoUrl,
    jwksUrl,
    // OIDC Core 11: offline access is asked for with prompt=consent, or the provider drops it.
    authorizationParams: consent,
    subject: (profile: Profile) => profile.sub ?? profile.id,
  };
  if (issuer !== undefined) {
    const complete =
      authorizationUrl !== undefined && tokenUrl !== undefined && jwksUrl !== undefined;
    return {
      ...standard,
      mode: 'issuer',
      issuers: [issuer],
      // Every endpoint given: nothing to look up, and no discovery document to depend on.
      discoverFrom: complete ? undefined : issuer,
      // Without metadata, the method every OAuth server must support (RFC 6749 2.3.1).
      tokenAuth: complete ? 'basic' : undefined,
    };
  }
  if (jwksUrl !== undefined) {
    base.warnings.push(
      `${prefix}_JWKS_URL is ignored without ${prefix}_ISSUER_URL: an ID token cannot be checked without the issuer it must name`,
    );
  }
  // Only asking for an ID token (`openid`) suggests an OpenID provider set up without its issuer;
  // scopes without it say plain OAuth 2.0 was meant (GitHub, `gateway dev`'s demo provider).
  if (scopes.includes('openid')) {
    base.warnings.push(
      `${provider.id}: endpoints are set without ${prefix}_ISSUER_URL, so ID tokens are not used; identity comes from ${prefix}_USERINFO_URL. Set ${prefix}_ISSUER_URL for an OpenID provider.`,
    );
  }
  return { ...standard, mode: 'oauth2', jwksUrl: undefined, tokenAuth: 'basic' };
}
