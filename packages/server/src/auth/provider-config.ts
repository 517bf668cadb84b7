import type { BetterAuthOptions } from 'better-auth';
import type { GenericOAuthConfig, GenericOAuthUserInfo } from 'better-auth/plugins';
import {
  type Env,
  microsoftAuthority,
  microsoftTenantId,
  oauthClient,
  oauthEndpoint,
} from '../config/env.js';
import { OAUTH_PROVIDERS, type OAuthProviderInfo, oauthCallbackUrl } from '../connectors/index.js';

/** The cloud-platform provider's scopes: read-only cloud access plus the OIDC identity scopes. */
export const CLOUD_PLATFORM_SCOPES: readonly string[] = Object.freeze([
  'https://www.googleapis.com/auth/cloud-platform.read-only',
  'openid',
  'email',
  'profile',
]);

/** Google's OpenID Connect userinfo endpoint (what the cloud-platform provider reads identity from). */
export const GOOGLE_OIDC_USERINFO_URL = 'https://openidconnect.googleapis.com/v1/userinfo';

/** The upstream side of a generic provider: public endpoints, scopes and identity mapping. */
interface GenericProviderSpec {
  authorizationUrl: string;
  tokenUrl: string;
  /** Absent when identity comes from `getUserInfo` (Linear's GraphQL API). */
  userInfoUrl?: string;
  scopes: readonly string[];
  /** Which profile field is the provider's stable account id. */
  subject: (profile: GenericOAuthUserInfo) => unknown;
  extra?: Partial<GenericOAuthConfig>;
  /** Identity from an API that is not an OIDC userinfo endpoint. */
  getUserInfo?: GenericOAuthConfig['getUserInfo'];
}

const GENERIC_PROVIDERS: Readonly<Record<string, GenericProviderSpec>> = {
  gcp: {
    authorizationUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
    tokenUrl: 'https://oauth2.googleapis.com/token',
    userInfoUrl: GOOGLE_OIDC_USERINFO_URL,
    scopes: CLOUD_PLATFORM_SCOPES,
    subject: (profile) => profile.sub ?? profile.id,
    // Offline access and consent every time: Google only returns a refresh token on consent.
    extra: { accessType: 'offline', prompt: 'consent' },
  },
  atlassian: {
    authorizationUrl: 'https://auth.atlassian.com/authorize',
    tokenUrl: 'https://auth.atlassian.com/oauth/token',
    userInfoUrl: 'https://api.atlassian.com/me',
    scopes: ['read:me', 'read:account', 'offline_access'],
    subject: (profile) => profile.account_id ?? profile.sub,
    extra: { prompt: 'consent', authorizationUrlParams: { audience: 'api.atlassian.com' } },
  },
  slack: {
    authorizationUrl: 'https://slack.com/openid/connect/authorize',
    tokenUrl: 'https://slack.com/api/openid.connect.token',
    userInfoUrl: 'https://slack.com/api/openid.connect.userInfo',
    scopes: ['openid', 'email', 'profile'],
    subject: (profile) => profile['https://slack.com/user_id'] ?? profile.sub,
  },
  linear: {
    authorizationUrl: 'https://linear.app/oauth/authorize',
    tokenUrl: 'https://api.linear.app/oauth/token',
    scopes: ['read'],
    subject: (profile) => profile.id ?? profile.sub,
    getUserInfo: linearViewer,
  },
};

/** Linear has no userinfo endpoint: the signed-in user is the GraphQL `viewer`. */
async function linearViewer(tokens: {
  accessToken?: string | undefined;
}): Promise<GenericOAuthUserInfo | null> {
  if (!tokens.accessToken) return null;
  const response = await fetch('https://api.linear.app/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.accessToken}` },
    body: JSON.stringify({ query: '{ viewer { id name email avatarUrl } }' }),
    signal: AbortSignal.timeout(10_000),
  });
  if (!response.ok) return null;
  const body = (await response.json()) as {
    data?: { viewer?: { id: string; name?: string; email?: string; avatarUrl?: string } };
  };
  const viewer = body.data?.viewer;
  if (!viewer) return null;
  // Linear says nothing about verification, so the email counts as unverified: a Linear sign-in
  // never links to an existing user by email match (see `validateUserInfo` in create-auth.ts).
  return {
    id: viewer.id,
    name: viewer.name,
    email: viewer.email,
    image: viewer.avatarUrl,
    emailVerified: false,
  };
}

/** One registered provider: its catalogue entry and the redirect URI it uses. */
export interface ConfiguredProvider extends OAuthProviderInfo {
  callbackUrl: string;
  /** The client secret, so logs can scrub it. */
  clientSecret: string;
}

/** What better-auth is given: the social providers, the generic OAuth configs, and who is on. */
export interface ProviderSetup {
  socialProviders: NonNullable<BetterAuthOptions['socialProviders']>;
  genericOAuth: GenericOAuthConfig[];
  configured: ConfiguredProvider[];
}

/**
 * Reads which shipped OAuth providers are enabled (both `<ID>_CLIENT_ID` and
 * `<ID>_CLIENT_SECRET` set) and builds their better-auth configuration. A provider missing either
 * is left out without an error. Generic providers get an explicit redirect URI,
 * `{authBaseUrl}/api/auth/oauth2/callback/<id>`, so the URI registered upstream never moves
 * with better-auth's defaults.
 *
 * @example
 * const setup = providerSetup(process.env, 'https://gw.example.com');
 * setup.configured.map((p) => p.id); // ['github', 'gcp']
 */
export function providerSetup(env: Env, authBaseUrl: string): ProviderSetup {
  const socialProviders: ProviderSetup['socialProviders'] = {};
  const genericOAuth: GenericOAuthConfig[] = [];
  const configured: ConfiguredProvider[] = [];

  for (const provider of OAUTH_PROVIDERS) {
    const client = oauthClient(env, provider.id);
    if (client === undefined) continue;
    configured.push({
      ...provider,
      callbackUrl: oauthCallbackUrl(authBaseUrl, provider),
      clientSecret: client.clientSecret,
    });
    if (provider.kind === 'social') {
      Object.assign(socialProviders, socialProvider(env, provider.id, client));
    } else {
      const config = genericProvider(env, provider, client, authBaseUrl);
      if (config) genericOAuth.push(config);
    }
  }
  return { socialProviders, genericOAuth, configured };
}

function socialProvider(
  env: Env,
  id: string,
  client: { clientId: string; clientSecret: string },
): BetterAuthOptions['socialProviders'] {
  switch (id) {
    case 'github':
      return { github: { ...client } };
    case 'google':
      // Offline access so tools keep working after the first hour; consent so a refresh token
      // is issued again on a later sign-in.
      return { google: { ...client, accessType: 'offline', prompt: 'select_account consent' } };
    case 'microsoft': {
      const tenantId = microsoftTenantId(env);
      const authority = microsoftAuthority(env);
      return {
        microsoft: {
          ...client,
          ...(tenantId === undefined ? {} : { tenantId }),
          ...(authority === undefined ? {} : { authority }),
          // The photo would be stored in the user row as a data URL; not worth a Graph call.
          disableProfilePhoto: true,
        },
      };
    }
    case 'discord':
      return { discord: { ...client } };
    default:
      return {};
  }
}

function genericProvider(
  env: Env,
  provider: OAuthProviderInfo,
  client: { clientId: string; clientSecret: string },
  authBaseUrl: string,
): GenericOAuthConfig | undefined {
  const spec = GENERIC_PROVIDERS[provider.id];
  if (spec === undefined) return undefined;
  const issuer = oauthEndpoint(env, provider.id, 'ISSUER_URL');
  const explicitUserInfo = oauthEndpoint(env, provider.id, 'USERINFO_URL');
  // With an issuer, discovery supplies what is not set explicitly; without, the public endpoints.
  const defaults = issuer === undefined ? spec : undefined;
  const authorizationUrl =
    oauthEndpoint(env, provider.id, 'AUTHORIZATION_URL') ?? defaults?.authorizationUrl;
  const tokenUrl = oauthEndpoint(env, provider.id, 'TOKEN_URL') ?? defaults?.tokenUrl;
  const userInfoUrl = explicitUserInfo ?? defaults?.userInfoUrl;
  // A custom identity lookup only applies to the provider's own API; an override points at an
  // OIDC userinfo endpoint (or discovery does).
  const getUserInfo =
    explicitUserInfo === undefined && issuer === undefined ? spec.getUserInfo : undefined;

  return {
    providerId: provider.id,
    name: provider.name,
    clientId: client.clientId,
    clientSecret: client.clientSecret,
    scopes: [...spec.scopes],
    redirectURI: oauthCallbackUrl(authBaseUrl, provider),
    accountSubject: ({ profile }) => {
      const subject = spec.subject(profile);
      return typeof subject === 'number' ? subject : String(subject ?? '');
    },
    ...(issuer === undefined
      ? {}
      : { discoveryUrl: `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration` }),
    ...(authorizationUrl === undefined ? {} : { authorizationUrl }),
    ...(tokenUrl === undefined ? {} : { tokenUrl }),
    ...(userInfoUrl === undefined ? {} : { userInfoUrl }),
    ...(getUserInfo === undefined ? {} : { getUserInfo }),
    ...spec.extra,
  };
}
