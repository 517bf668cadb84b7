import {
  type Answer,
  base62,
  type Grant,
  hex,
  type ProviderMock,
  type ProviderPerson,
  personWith,
  scopesOf,
  startProviderMock,
} from './provider-mock.js';

/**
 * Test support: GitHub, Google, Discord and Microsoft as better-auth's social providers see them,
 * played by a real local OAuth server (oauth2-mock-server) that the test process's `fetch` reaches
 * in place of the public hosts (see `provider-mock.ts` and `route-upstream.ts`). Each one serves
 * its provider's real paths and answers in its provider's shapes: GitHub's `/user` and
 * `/user/emails`, Google's and Microsoft's ID token claims, Discord's `/users/@me`, and each
 * provider's token responses, refresh behaviour and errors. Google's server also plays the
 * cloud-platform provider (`gcp`), which talks to the same Google endpoints.
 */

export type { ProviderPerson } from './provider-mock.js';

/** Three of the social providers whose endpoints better-auth hard-codes (Microsoft: {@link startMicrosoft}). */
export type SocialProviderId = 'github' | 'google' | 'discord';

/** A running social provider (its `id` is a {@link SocialProviderId}, or `gcp`). */
export type SocialProviderMock = ProviderMock;

function githubLogin(person: ProviderPerson): string {
  return person.name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
}

/** Options of {@link startGitHub}. */
export interface GitHubOptions {
  person?: Partial<ProviderPerson>;
  /** Whether `/user` shows the email (the user made it public). GitHub's default keeps it private. */
  publicEmail?: boolean;
  /**
   * A GitHub App with expiring user tokens: access tokens last 8 hours and come with a refresh
   * token, rotated on every refresh. Without it, an OAuth App: tokens never expire and no refresh
   * token is issued.
   */
  expiringTokens?: boolean;
}

/**
 * GitHub on a local server: `github.com/login/oauth/{authorize,access_token}`,
 * `api.github.com/user` and `/user/emails`. Token errors come with status 200, as GitHub sends
 * them; `/user/emails` needs the `user:email` scope (OAuth Apps) and every API call a User-Agent.
 *
 * @example
 * const github = await startGitHub({ person: { email: 'ada@example.test' } });
 * const gw = await createTestGateway({ env: github.env });
 */
export async function startGitHub(options: GitHubOptions = {}): Promise<ProviderMock> {
  const app = options.expiringTokens === true;
  const person = personWith(
    { id: '583231', email: 'mona@example.test', emailVerified: true, name: 'Mona Octocat' },
    options.person,
  );
  const canReadEmails = (grant: Grant) =>
    app || grant.scopes.includes('user:email') || grant.scopes.includes('user');
  return startProviderMock(
    {
      id: 'github',
      endpoints: {
        authorize: '/login/oauth/authorize',
        token: '/login/oauth/access_token',
        userinfo: '/user',
      },
      origins: ['https://github.com', 'https://api.github.com'],
      newAccessToken: () => `${app ? 'ghu' : 'gho'}_${base62(36)}`,
      newRefreshToken: () => `ghr_${base62(76)}`,
      issuesRefreshToken: () => app,
      rotatesRefreshTokens: true,
      tokenBody: ({ accessToken, refreshToken }, grant) =>
        app
          ? {
              access_token: accessToken,
              expires_in: 28_800,
              refresh_token: refreshToken,
              refresh_token_expires_in: 15_811_200,
              token_type: 'bearer',
              scope: '',
            }
          : { access_token: accessToken, token_type: 'bearer', scope: grant.scopes.join(',') },
      invalidGrant: (grantType) => ({
        statusCode: 200,
        body:
          grantType === 'refresh_token'
            ? {
                error: 'bad_refresh_token',
                error_description: 'The refresh token passed is incorrect or expired.',
              }
            : {
                error: 'bad_verification_code',
                error_description: 'The code passed is incorrect or expired.',
              },
      }),
      invalidClient: {
        statusCode: 200,
        body: {
          error: 'incorrect_client_credentials',
          error_description: 'The client_id and/or client_secret passed are incorrect.',
        },
      },
      refuse: (req) =>
        req.headers['user-agent']
          ? undefined
          : {
              statusCode: 403,
              body: {
                message:
                  'Request forbidden by administrative rules. Please make sure your request has a User-Agent header',
              },
            },
      unauthorized: {
        statusCode: 401,
        body: { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' },
      },
      profile: ({ person }) => {
        const login = githubLogin(person);
        return {
          login,
          id: Number(person.id),
          node_id: `U_kgDO${person.id}`,
          avatar_url: `https://avatars.githubusercontent.com/u/${person.id}?v=4`,
          html_url: `https://github.com/${login}`,
          type: 'User',
          site_admin: false,
          name: person.name,
          company: null,
          blog: '',
          location: null,
          email: options.publicEmail ? person.email : null,
          bio: null,
          public_repos: 8,
          followers: 2,
          following: 1,
          created_at: '2015-03-04T12:00:00Z',
          updated_at: '2026-01-01T12:00:00Z',
        };
      },
      routes: {
        '/user/emails': (grant) =>
          canReadEmails(grant)
            ? {
                statusCode: 200,
                body: [
                  {
                    email: grant.person.email,
                    primary: true,
                    verified: grant.person.emailVerified,
                    visibility: options.publicEmail ? 'public' : 'private',
                  },
                  {
                    email: `${grant.person.id}+${githubLogin(grant.person)}@users.noreply.github.com`,
                    primary: false,
                    verified: true,
                    visibility: null,
                  },
                ],
              }
            : {
                statusCode: 404,
                body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' },
              },
      },
    },
    person,
  );
}

/** Options of {@link startGoogle}. */
export interface GoogleOptions {
  person?: Partial<ProviderPerson>;
  /**
   * Which gateway provider's client it serves: `google` (the social provider) or `gcp` (the
   * cloud-platform provider, a generic one on the same Google endpoints). Default `google`.
   */
  client?: 'google' | 'gcp';
  /**
   * False: the ID token carries `sub` and no email, so identity has to come from the OIDC
   * userinfo endpoint (what a client configured without it would fail on). Default true, as
   * Google does with the `email` scope.
   */
  emailInIdToken?: boolean;
}

const GOOGLE_SCOPES: Readonly<Record<string, string>> = {
  email: 'https://www.googleapis.com/auth/userinfo.email',
  profile: 'https://www.googleapis.com/auth/userinfo.profile',
};

/** What Google says about the person, in the ID token and at its OIDC userinfo endpoint. */
function googleClaims({ person, scopes }: Grant): Record<string, unknown> {
  const [given, ...family] = person.name.split(' ');
  return {
    sub: person.id,
    ...(scopes.includes('email')
      ? { email: person.email, email_verified: person.emailVerified }
      : {}),
    ...(scopes.includes('profile')
      ? {
          name: person.name,
          picture: `https://lh3.googleusercontent.com/a/${person.id}=s96-c`,
          given_name: given,
          family_name: family.join(' '),
        }
      : {}),
  };
}

/**
 * Google on a local server: `accounts.google.com/o/oauth2/v2/auth`, `oauth2.googleapis.com/token`,
 * the signing keys at `www.googleapis.com/oauth2/v3/certs` and the OIDC userinfo endpoint
 * `openidconnect.googleapis.com/v1/userinfo`. Identity is in the ID token
 * (issuer `https://accounts.google.com`, audience the client id), with `email` and `profile`
 * claims only for those scopes. A refresh token comes only with `access_type=offline`, and after
 * the first time only with `prompt=consent`; refreshing never rotates it.
 *
 * @example
 * const google = await startGoogle({ person: { email: 'ada@example.test' } });
 */
export async function startGoogle(options: GoogleOptions = {}): Promise<SocialProviderMock> {
  const person = personWith(
    { id: '110169484474386276334', email: 'ada@example.test', emailVerified: true, name: 'Ada L' },
    options.person,
  );
  const consented = new Set<string>();
  const emailInIdToken = options.emailInIdToken ?? true;
  return startProviderMock(
    {
      id: options.client ?? 'google',
      endpoints: {
        authorize: '/o/oauth2/v2/auth',
        token: '/token',
        jwks: '/oauth2/v3/certs',
        userinfo: '/v1/userinfo',
      },
      origins: [
        'https://accounts.google.com',
        'https://oauth2.googleapis.com',
        'https://www.googleapis.com',
        'https://openidconnect.googleapis.com',
      ],
      newAccessToken: () => `ya29.a0${base62(120)}`,
      newRefreshToken: () => `1//0${base62(100)}`,
      issuesRefreshToken: ({ authorize, person }, grantType) => {
        if (grantType !== 'authorization_code' || authorize.get('access_type') !== 'offline')
          return false;
        const first = !consented.has(person.id);
        consented.add(person.id);
        return first || scopesOf(authorize.get('prompt')).includes('consent');
      },
      rotatesRefreshTokens: false,
      tokenBody: ({ accessToken, refreshToken, idToken }, grant) => ({
        access_token: accessToken,
        expires_in: 3599,
        ...(refreshToken === undefined ? {} : { refresh_token: refreshToken }),
        scope: grant.scopes.map((scope) => GOOGLE_SCOPES[scope] ?? scope).join(' '),
        token_type: 'Bearer',
        ...(grant.scopes.includes('openid') ? { id_token: idToken } : {}),
      }),
      idTokenClaims: (grant, clientId) => ({
        iss: 'https://accounts.google.com',
        azp: clientId,
        aud: clientId,
        ...(emailInIdToken ? googleClaims(grant) : { sub: grant.person.id }),
      }),
      profile: googleClaims,
      invalidGrant: (grantType) => ({
        statusCode: 400,
        body: {
          error: 'invalid_grant',
          error_description:
            grantType === 'refresh_token' ? 'Token has been expired or revoked.' : 'Bad Request',
        },
      }),
      invalidClient: {
        statusCode: 401,
        body: { error: 'invalid_client', error_description: 'Unauthorized' },
      },
      unauthorized: {
        statusCode: 401,
        body: { error: 'invalid_request', error_description: 'Invalid Credentials' },
      },
    },
    person,
  );
}

/** Options of {@link startDiscord}. */
export interface DiscordOptions {
  person?: Partial<ProviderPerson>;
}

/**
 * Discord on a local server: `discord.com/api/oauth2/{authorize,token}` and
 * `discord.com/api/users/@me`, whose `email` and `verified` need the `email` scope. Access tokens
 * last a week and come with a refresh token, rotated on every refresh.
 *
 * @example
 * const discord = await startDiscord({ person: { email: 'ada@example.test' } });
 */
export async function startDiscord(options: DiscordOptions = {}): Promise<SocialProviderMock> {
  const person = personWith(
    { id: '80351110224678912', email: 'nelly@example.test', emailVerified: true, name: 'Nelly' },
    options.person,
  );
  return startProviderMock(
    {
      id: 'discord',
      endpoints: {
        authorize: '/api/oauth2/authorize',
        token: '/api/oauth2/token',
        // better-fetch sends `@` percent-encoded; Discord answers both spellings.
        userinfo: '/api/users/%40me',
      },
      profileAliases: ['/api/users/@me'],
      origins: ['https://discord.com'],
      newAccessToken: () => base62(30),
      newRefreshToken: () => base62(30),
      issuesRefreshToken: () => true,
      rotatesRefreshTokens: true,
      tokenBody: ({ accessToken, refreshToken }, grant) => ({
        token_type: 'Bearer',
        access_token: accessToken,
        expires_in: 604_800,
        refresh_token: refreshToken,
        scope: grant.scopes.join(' '),
      }),
      invalidGrant: () => ({ statusCode: 400, body: { error: 'invalid_grant' } }),
      invalidClient: { statusCode: 401, body: { error: 'invalid_client' } },
      unauthorized: { statusCode: 401, body: { message: '401: Unauthorized', code: 0 } },
      profile: ({ person, scopes }) => ({
        id: person.id,
        username: person.name.toLowerCase().replace(/[^a-z0-9_.]+/g, '_'),
        avatar: null,
        discriminator: '0',
        public_flags: 0,
        flags: 0,
        banner: null,
        accent_color: null,
        global_name: person.name,
        avatar_decoration_data: null,
        banner_color: null,
        mfa_enabled: false,
        locale: 'en-US',
        premium_type: 0,
        ...(scopes.includes('email')
          ? { email: person.email, verified: person.emailVerified }
          : {}),
      }),
    },
    person,
  );
}

/** Options of {@link startMicrosoft}. */
export interface MicrosoftOptions {
  person?: Partial<ProviderPerson>;
  /** The user's directory (`tid`). Default a work tenant. */
  tenantId?: string;
  /**
   * Whether the app registration asks for the optional claim `verified_primary_email`, the only
   * way Microsoft says an address is verified. Default true. Without it Microsoft reports
   * nothing about verification, and better-auth counts the email as unverified.
   */
  verifiedEmailClaim?: boolean;
}

/**
 * Microsoft Entra ID on a local server: `login.microsoftonline.com/common/oauth2/v2.0/{authorize,token}`
 * and the signing keys at `/common/discovery/v2.0/keys`; `graph.microsoft.com` is routed too,
 * to see that the profile photo is never fetched. Identity is in the ID token (issuer
 * `https://login.microsoftonline.com/<tid>/v2.0`, the account's `oid`, `email` with the `email`
 * scope, and `verified_primary_email` when the app asks for it). Refresh tokens come with
 * `offline_access`; every refresh returns a new one, and the old one stays valid.
 *
 * @example
 * const microsoft = await startMicrosoft({ person: { email: 'ada@example.test' } });
 */
export async function startMicrosoft(options: MicrosoftOptions = {}): Promise<ProviderMock> {
  const person = personWith(
    {
      id: '00000000-0000-0000-66f3-3332eca7ea81',
      email: 'megan@contoso.example',
      emailVerified: true,
      name: 'Megan Bowen',
    },
    options.person,
  );
  const tenantId = options.tenantId ?? '72f988bf-86f1-41af-91ab-2d7cd011db47';
  const verifiedEmailClaim = options.verifiedEmailClaim ?? true;
  const unauthorized: Answer = {
    statusCode: 401,
    body: {
      error: {
        code: 'InvalidAuthenticationToken',
        message: 'IDX14100: JWT is not well formed.',
      },
    },
  };
  return startProviderMock(
    {
      id: 'microsoft',
      endpoints: {
        authorize: '/common/oauth2/v2.0/authorize',
        token: '/common/oauth2/v2.0/token',
        jwks: '/common/discovery/v2.0/keys',
        userinfo: '/oidc/userinfo',
      },
      origins: ['https://login.microsoftonline.com', 'https://graph.microsoft.com'],
      newAccessToken: () => `EwB4A8l6BAAU${base62(160)}`,
      newRefreshToken: () => `M.C5${hex(2)}_BAY.0.U.-${base62(300)}`,
      issuesRefreshToken: ({ scopes }) => scopes.includes('offline_access'),
      rotatesRefreshTokens: false,
      tokenBody: ({ accessToken, refreshToken, idToken }, grant) => ({
        token_type: 'Bearer',
        scope: grant.scopes.filter((scope) => scope !== 'offline_access').join(' '),
        expires_in: 3599,
        ext_expires_in: 3599,
        access_token: accessToken,
        ...(refreshToken === undefined ? {} : { refresh_token: refreshToken }),
        ...(grant.scopes.includes('openid') ? { id_token: idToken } : {}),
      }),
      idTokenClaims: ({ person, scopes }, clientId) => ({
        ver: '2.0',
        iss: `https://login.microsoftonline.com/${tenantId}/v2.0`,
        aud: clientId,
        tid: tenantId,
        oid: person.id,
        // A pairwise subject, different per app: the stable id is `oid`.
        sub: `AAAAAAAAAAAAAAAAAAAAA${person.id.slice(-8)}`,
        ...(scopes.includes('profile')
          ? { name: person.name, preferred_username: person.email }
          : {}),
        ...(scopes.includes('email') ? { email: person.email } : {}),
        ...(scopes.includes('email') && verifiedEmailClaim && person.emailVerified
          ? { verified_primary_email: [person.email] }
          : {}),
      }),
      routes: {
        '/v1.0/me': ({ person }) => ({
          statusCode: 200,
          body: {
            id: person.id,
            displayName: person.name,
            mail: person.email,
            userPrincipalName: person.email,
          },
        }),
      },
      invalidGrant: (grantType) => ({
        statusCode: 400,
        body: {
          error: 'invalid_grant',
          error_description:
            grantType === 'refresh_token'
              ? "AADSTS70000: The provided value for the input parameter 'refresh_token' is not valid."
              : 'AADSTS70000: The provided authorization code is invalid or has expired.',
          error_codes: [70000],
        },
      }),
      invalidClient: {
        statusCode: 401,
        body: {
          error: 'invalid_client',
          error_description: 'AADSTS7000215: Invalid client secret provided.',
          error_codes: [7000215],
        },
      },
      unauthorized,
    },
    person,
  );
}

/** Starts the mock of social provider `id` with its defaults. */
export function startSocialProvider(
  id: SocialProviderId,
  options: { person?: Partial<ProviderPerson> } = {},
): Promise<SocialProviderMock> {
  switch (id) {
    case 'github':
      return startGitHub(options);
    case 'google':
      return startGoogle(options);
    case 'discord':
      return startDiscord(options);
  }
}
