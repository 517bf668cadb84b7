import {
  type Answer,
  base62,
  type Grant,
  hex,
  type ProviderMock,
  type ProviderPerson,
  personWith,
  startProviderMock,
} from './provider-mock.js';
import { type GoogleOptions, startGoogle } from './social-providers.js';

/**
 * Test support: the four generic providers (better-auth's generic OAuth plugin) on a real local
 * OAuth server reached in place of their public hosts, so the gateway runs them with their
 * production endpoints and nothing but `<ID>_CLIENT_ID` and `<ID>_CLIENT_SECRET` set. Each serves
 * its provider's real paths and answers in its shapes (see `provider-mock.ts` for what every one
 * of them checks).
 */

/** The generic providers' ids. */
export type GenericProviderId = 'gcp' | 'atlassian' | 'slack' | 'linear';

/** Options shared by the generic provider mocks. */
export interface GenericProviderOptions {
  person?: Partial<ProviderPerson>;
}

/**
 * The cloud-platform provider (`gcp`): Google's own endpoints (see {@link startGoogle}), with the
 * `gcp` client.
 *
 * @example
 * const gcp = await startCloudPlatform({ person: { email: 'ada@example.test' } });
 * const gw = await createTestGateway({ env: gcp.env });
 */
export function startCloudPlatform(
  options: Omit<GoogleOptions, 'client'> = {},
): Promise<ProviderMock> {
  return startGoogle({ ...options, client: 'gcp' });
}

/** Options of {@link startAtlassian}. */
export interface AtlassianOptions extends GenericProviderOptions {
  /** Whether `/me` says `email_verified`. Default true; false leaves the field out. */
  reportsEmailVerified?: boolean;
}

/**
 * Atlassian on a local server: `auth.atlassian.com/authorize` (which refuses a request without
 * `audience=api.atlassian.com`), `auth.atlassian.com/oauth/token`, and the user identity API
 * `api.atlassian.com/me` (needs `read:me`), whose stable id is `account_id`. Access tokens last
 * an hour; a refresh token comes with `offline_access` and is rotated on every refresh.
 *
 * @example
 * const atlassian = await startAtlassian({ person: { email: 'mia@example.test' } });
 */
export async function startAtlassian(options: AtlassianOptions = {}): Promise<ProviderMock> {
  const person = personWith(
    {
      id: '712020:c7f5b9a0-1d2e-4f3a-8b4c-5d6e7f8a9b0c',
      email: 'mia@example.test',
      emailVerified: true,
      name: 'Mia Krystof',
    },
    options.person,
  );
  const reportsEmailVerified = options.reportsEmailVerified ?? true;
  const forbidden: Answer = { statusCode: 403, body: { code: 403, message: 'Forbidden' } };
  return startProviderMock(
    {
      id: 'atlassian',
      endpoints: { authorize: '/authorize', token: '/oauth/token', userinfo: '/me' },
      origins: ['https://auth.atlassian.com', 'https://api.atlassian.com'],
      newAccessToken: () => `eyJraWQiOiJhdXRoLmF0bGFzc2lhbi5jb20.${base62(200)}.${base62(86)}`,
      newRefreshToken: () => `eyJraWQiOiI1MWE2YjE2MjRlMTQ.${base62(180)}.${base62(43)}`,
      issuesRefreshToken: ({ scopes }) => scopes.includes('offline_access'),
      rotatesRefreshTokens: true,
      refuseAuthorize: (query) =>
        query.get('audience') === 'api.atlassian.com' ? undefined : 'invalid_request',
      tokenBody: ({ accessToken, refreshToken }, grant) => ({
        access_token: accessToken,
        expires_in: 3600,
        token_type: 'Bearer',
        ...(refreshToken === undefined ? {} : { refresh_token: refreshToken }),
        scope: grant.scopes.join(' '),
      }),
      profileRefusal: ({ scopes }) => (scopes.includes('read:me') ? undefined : forbidden),
      profile: ({ person }) => ({
        account_type: 'atlassian',
        account_id: person.id,
        email: person.email,
        ...(reportsEmailVerified ? { email_verified: person.emailVerified } : {}),
        name: person.name,
        picture: `https://avatar-management--avatars.us-west-2.prod.public.atl-paas.net/${person.id}/128`,
        account_status: 'active',
        nickname: person.name.split(' ')[0],
        zoneinfo: 'Australia/Sydney',
        locale: 'en-US',
        extended_profile: { job_title: 'Designer', organization: 'example.test' },
      }),
      invalidGrant: (grantType) => ({
        statusCode: 403,
        body: {
          error: 'invalid_grant',
          error_description:
            grantType === 'refresh_token'
              ? 'Unknown or invalid refresh token.'
              : 'Invalid authorization code',
        },
      }),
      invalidClient: {
        statusCode: 401,
        body: { error: 'access_denied', error_description: 'Unauthorized' },
      },
      unauthorized: { statusCode: 401, body: { code: 401, message: 'Unauthorized' } },
    },
    person,
  );
}

/** Options of {@link startSlack}. */
export interface SlackOptions extends GenericProviderOptions {
  /**
   * Token rotation, as the app's settings turn it on: user tokens expire after 12 hours and come
   * with a refresh token, spent on use. Default true; without it tokens never expire and no
   * refresh token is issued.
   */
  tokenRotation?: boolean;
}

/** What Sign in with Slack says about the person, in the ID token and at `openid.connect.userInfo`. */
function slackClaims({ person, scopes }: Grant): Record<string, unknown> {
  const [given, ...family] = person.name.split(' ');
  return {
    sub: person.id,
    'https://slack.com/user_id': person.id,
    'https://slack.com/team_id': 'T0R7GR',
    ...(scopes.includes('email')
      ? {
          email: person.email,
          email_verified: person.emailVerified,
          date_email_verified: 1_622_128_723,
        }
      : {}),
    ...(scopes.includes('profile')
      ? {
          name: person.name,
          picture: `https://secure.gravatar.com/avatar/${person.id}.jpg`,
          given_name: given,
          family_name: family.join(' '),
          locale: 'en-US',
          'https://slack.com/team_name': 'Example Team',
          'https://slack.com/team_domain': 'example-team',
        }
      : {}),
  };
}

/**
 * Sign in with Slack (OpenID Connect) on a local server: `slack.com/openid/connect/authorize`,
 * `slack.com/api/openid.connect.token` and `slack.com/api/openid.connect.userInfo`. Identity is
 * in the ID token (issuer `https://slack.com`, `sub` the user id). Slack answers errors with
 * status 200 and `{ "ok": false, "error" }`, and every success with `"ok": true`.
 *
 * @example
 * const slack = await startSlack({ person: { email: 'krane@example.test' } });
 */
export async function startSlack(options: SlackOptions = {}): Promise<ProviderMock> {
  const person = personWith(
    { id: 'U0R7JM2KD', email: 'krane@example.test', emailVerified: true, name: 'Bront Krane' },
    options.person,
  );
  const rotation = options.tokenRotation ?? true;
  const refused = (error: string): Answer => ({ statusCode: 200, body: { ok: false, error } });
  return startProviderMock(
    {
      id: 'slack',
      endpoints: {
        authorize: '/openid/connect/authorize',
        token: '/api/openid.connect.token',
        userinfo: '/api/openid.connect.userInfo',
        jwks: '/openid/connect/keys',
      },
      origins: ['https://slack.com'],
      newAccessToken: () =>
        rotation ? `xoxe.xoxp-1-${base62(150)}` : `xoxp-2141029472-${hex(12)}-${hex(32)}`,
      newRefreshToken: () => `xoxe-1-${base62(140)}`,
      issuesRefreshToken: () => rotation,
      rotatesRefreshTokens: true,
      tokenBody: ({ accessToken, refreshToken, idToken, grantType }) => ({
        ok: true,
        access_token: accessToken,
        token_type: 'Bearer',
        ...(grantType === 'authorization_code' ? { id_token: idToken } : {}),
        ...(refreshToken === undefined ? {} : { refresh_token: refreshToken, expires_in: 43_200 }),
      }),
      idTokenClaims: (grant, clientId) => ({
        iss: 'https://slack.com',
        aud: clientId,
        ...slackClaims(grant),
      }),
      profile: (grant) => ({ ok: true, ...slackClaims(grant) }),
      invalidGrant: (grantType) =>
        refused(grantType === 'refresh_token' ? 'invalid_refresh_token' : 'invalid_code'),
      invalidClient: refused('bad_client_secret'),
      unauthorized: refused('invalid_auth'),
    },
    person,
  );
}

/**
 * Linear on a local server: `linear.app/oauth/authorize`, `api.linear.app/oauth/token`, and the
 * GraphQL API `api.linear.app/graphql`, whose `viewer` is the signed-in user (Linear has no
 * userinfo endpoint, and says nothing about whether the email is verified). Access tokens last a
 * day and come with a refresh token, rotated on every refresh.
 *
 * @example
 * const linear = await startLinear({ person: { email: 'ada@example.test' } });
 */
export async function startLinear(options: GenericProviderOptions = {}): Promise<ProviderMock> {
  const person = personWith(
    {
      id: '2d9c0f5e-6a1b-4c3d-9e8f-7a6b5c4d3e2f',
      email: 'ada@example.test',
      emailVerified: true,
      name: 'Ada Lovelace',
    },
    options.person,
  );
  const graphqlError = (message: string, code: string): Answer => ({
    statusCode: 400,
    body: { errors: [{ message, extensions: { code, type: code.toLowerCase() } }] },
  });
  return startProviderMock(
    {
      id: 'linear',
      endpoints: { authorize: '/oauth/authorize', token: '/oauth/token' },
      origins: ['https://linear.app', 'https://api.linear.app'],
      newAccessToken: () => `lin_oauth_${hex(64)}`,
      newRefreshToken: () => `lin_refresh_${hex(64)}`,
      issuesRefreshToken: () => true,
      rotatesRefreshTokens: true,
      tokenBody: ({ accessToken, refreshToken }, grant) => ({
        access_token: accessToken,
        token_type: 'Bearer',
        expires_in: 86_399,
        scope: grant.scopes.join(' '),
        ...(refreshToken === undefined ? {} : { refresh_token: refreshToken }),
      }),
      postRoutes: {
        '/graphql': ({ person }, body) => {
          const query = (body as { query?: unknown } | undefined)?.query;
          if (typeof query !== 'string')
            return graphqlError('Must provide query string.', 'INVALID_INPUT');
          if (!/\bviewer\b/.test(query))
            return graphqlError('Only the viewer is served here.', 'INVALID_INPUT');
          return {
            statusCode: 200,
            body: {
              data: {
                viewer: {
                  id: person.id,
                  name: person.name,
                  email: person.email,
                  avatarUrl: null,
                  active: true,
                },
              },
            },
          };
        },
      },
      invalidGrant: () => ({
        statusCode: 400,
        body: { error: 'invalid_grant', error_description: 'Invalid grant' },
      }),
      invalidClient: {
        statusCode: 401,
        body: { error: 'invalid_client', error_description: 'Client authentication failed' },
      },
      unauthorized: {
        statusCode: 401,
        body: {
          errors: [
            {
              message: 'Authentication required, not authenticated',
              extensions: { code: 'AUTHENTICATION_ERROR', type: 'authentication error' },
            },
          ],
        },
      },
    },
    person,
  );
}

/** Starts the mock of generic provider `id` with its defaults. */
export function startGenericProvider(
  id: GenericProviderId,
  options: GenericProviderOptions = {},
): Promise<ProviderMock> {
  switch (id) {
    case 'gcp':
      return startCloudPlatform(options);
    case 'atlassian':
      return startAtlassian(options);
    case 'slack':
      return startSlack(options);
    case 'linear':
      return startLinear(options);
  }
}
