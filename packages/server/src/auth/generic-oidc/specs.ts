/**
 * The shipped generic providers as their own services run them: public endpoints, the scopes
 * that give a refresh token there, what else their authorization request needs, and where
 * identity comes from. None of it applies once the provider is pointed elsewhere (see
 * `resolve-provider.ts`).
 */

/** A profile as a provider answers it (ID token claims or userinfo). */
export type Profile = Record<string, unknown>;

/** The identity a non-OIDC API gives, in the shape better-auth's user info takes. */
export interface ApiIdentity {
  profile: Profile;
  email?: string | undefined;
  name?: string | undefined;
  image?: string | undefined;
  emailVerified: boolean;
}

/** One shipped generic provider on its own service. */
export interface GenericProviderSpec {
  authorizationUrl: string;
  tokenUrl: string;
  /** Absent when identity comes from {@link GenericProviderSpec.identity} (Linear's GraphQL API). */
  userInfoUrl?: string;
  /** Set for OpenID providers: ID tokens are verified against these. */
  oidc?: { issuer: readonly string[]; jwksUrl: string };
  scopes: readonly string[];
  /** Which profile field is the provider's stable account id. */
  subject(profile: Profile): unknown;
  /** Authorization request parameters the service needs (Google's `access_type`, ...). */
  authorizationParams?: Readonly<Record<string, string>>;
  /** How the service takes the client secret at its token endpoint. */
  tokenAuth: 'basic' | 'post';
  /** Identity from an API that is not an OIDC userinfo endpoint. */
  identity?(accessToken: string): Promise<ApiIdentity | null>;
}

/** The cloud-platform provider's scopes: read-only cloud access plus the OIDC identity scopes. */
export const CLOUD_PLATFORM_SCOPES: readonly string[] = Object.freeze([
  'https://www.googleapis.com/auth/cloud-platform.read-only',
  'openid',
  'email',
  'profile',
]);

/**
 * What a generic provider asks a standard OpenID provider for (Keycloak, Auth0, Okta, Entra ID,
 * Authentik, ...): identity with an email, and `offline_access`, without which OIDC Core 11 says
 * no refresh token is issued.
 */
export const STANDARD_OIDC_SCOPES: readonly string[] = Object.freeze([
  'openid',
  'email',
  'profile',
  'offline_access',
]);

/** Google's OpenID Connect userinfo endpoint (what the cloud-platform provider reads identity from). */
export const GOOGLE_OIDC_USERINFO_URL = 'https://openidconnect.googleapis.com/v1/userinfo';

const stringOf = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : undefined;

export const GENERIC_PROVIDER_SPECS: Readonly<Record<string, GenericProviderSpec>> = {
  gcp: {
    authorizationUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
    tokenUrl: 'https://oauth2.googleapis.com/token',
    userInfoUrl: GOOGLE_OIDC_USERINFO_URL,
    // Google writes either form in `iss` (its discovery document names the first).
    oidc: {
      issuer: ['https://accounts.google.com', 'accounts.google.com'],
      jwksUrl: 'https://www.googleapis.com/oauth2/v3/certs',
    },
    scopes: CLOUD_PLATFORM_SCOPES,
    subject: (profile) => profile.sub ?? profile.id,
    // Google ignores `offline_access`: a refresh token comes with access_type=offline, and again
    // on a later sign-in only with consent.
    authorizationParams: { access_type: 'offline', prompt: 'consent' },
    tokenAuth: 'post',
  },
  atlassian: {
    authorizationUrl: 'https://auth.atlassian.com/authorize',
    tokenUrl: 'https://auth.atlassian.com/oauth/token',
    userInfoUrl: 'https://api.atlassian.com/me',
    // `read:me` is what makes /me share the email.
    scopes: ['read:me', 'read:account', 'offline_access'],
    subject: (profile) => profile.account_id ?? profile.sub,
    authorizationParams: { audience: 'api.atlassian.com', prompt: 'consent' },
    tokenAuth: 'post',
  },
  slack: {
    authorizationUrl: 'https://slack.com/openid/connect/authorize',
    tokenUrl: 'https://slack.com/api/openid.connect.token',
    userInfoUrl: 'https://slack.com/api/openid.connect.userInfo',
    oidc: { issuer: ['https://slack.com'], jwksUrl: 'https://slack.com/openid/connect/keys' },
    // Slack issues refresh tokens when the app turns token rotation on; no scope asks for them.
    scopes: ['openid', 'email', 'profile'],
    subject: (profile) => profile['https://slack.com/user_id'] ?? profile.sub,
    tokenAuth: 'post',
  },
  linear: {
    authorizationUrl: 'https://linear.app/oauth/authorize',
    tokenUrl: 'https://api.linear.app/oauth/token',
    scopes: ['read'],
    subject: (profile) => profile.id ?? profile.sub,
    tokenAuth: 'post',
    identity: linearViewer,
  },
};

/** Linear has no userinfo endpoint: the signed-in user is the GraphQL `viewer`. */
async function linearViewer(accessToken: string): Promise<ApiIdentity | null> {
  const response = await fetch('https://api.linear.app/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
    body: JSON.stringify({ query: '{ viewer { id name email avatarUrl } }' }),
    signal: AbortSignal.timeout(10_000),
  });
  if (!response.ok) return null;
  const body = (await response.json()) as { data?: { viewer?: Profile } };
  const viewer = body.data?.viewer;
  if (!viewer || stringOf(viewer.id) === undefined) return null;
  // Linear says nothing about verification, so the email counts as unverified: a Linear sign-in
  // never links to an existing user by email match (see `validateUserInfo` in create-auth.ts).
  return {
    profile: viewer,
    email: stringOf(viewer.email),
    name: stringOf(viewer.name),
    image: stringOf(viewer.avatarUrl),
    emailVerified: false,
  };
}
