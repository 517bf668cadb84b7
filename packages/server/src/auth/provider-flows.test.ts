import { AuthRequiredError } from '@gateway/sdk';
import { decryptOAuthToken } from 'better-auth/oauth2';
import { describe, expect, it } from 'vitest';
import {
  startAtlassian,
  startCloudPlatform,
  startLinear,
  startSlack,
} from '#test/auth/generic-providers.js';
import { browser, gatewayTargets, oauthSignIn } from '#test/auth/oauth-test-kit.js';
import type { ProviderMock, ProviderPerson } from '#test/auth/provider-mock.js';
import { startDiscord, startMicrosoft } from '#test/auth/social-providers.js';
import type { TestGateway } from '#test/support/test-gateway.js';
import { CLOUD_PLATFORM_SCOPES, GOOGLE_OIDC_USERINFO_URL } from './generic-oidc/index.js';
import { providerSetup } from './provider-config.js';

// Microsoft and the four generic providers with their production settings: only
// `<ID>_CLIENT_ID` and `<ID>_CLIENT_SECRET` are set, and the public hosts better-auth and the
// gateway call (login.microsoftonline.com, accounts.google.com, auth.atlassian.com, slack.com,
// api.linear.app, ...) are routed, in this test process only, to a real local OAuth server playing
// each provider (test/auth/). Sign-in, account linking, encrypted token storage and refresh through
// `ctx.auth.getToken`, counted at the provider.

const ORIGIN = 'http://127.0.0.1:8787';

type Id = 'microsoft' | 'gcp' | 'atlassian' | 'slack' | 'linear';

interface Expected {
  name: string;
  id: Id;
  start(person?: Partial<ProviderPerson>): Promise<ProviderMock>;
  callbackPath: string;
  scope: string;
  /** Authorization request parameters the provider needs. */
  authorize: Record<string, string>;
  /** The public endpoints a sign-in calls. */
  calls: string[];
  tokenPath: string;
  /** Whether a refresh spends the refresh token (a new one must be stored). */
  rotates: boolean;
  /** Whether a refresh returns a new refresh token at all. */
  refreshReturnsRefreshToken: boolean;
  /** Whether the provider reports the email as verified (so it links by email match). */
  verifiesEmail: boolean;
  /** Asks the provider's API who a token belongs to, as a tool would use it. */
  whoAmI(token: string): Promise<string>;
}

async function getJson(url: string, token: string, init: RequestInit = {}): Promise<unknown> {
  const response = await fetch(url, {
    ...init,
    headers: { authorization: `Bearer ${token}`, ...init.headers },
  });
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return response.json();
}

const PROVIDERS: Expected[] = [
  {
    name: 'Microsoft (social)',
    id: 'microsoft',
    start: (person) => startMicrosoft({ person }),
    callbackPath: '/api/auth/callback/microsoft',
    scope: 'openid profile email User.Read offline_access',
    authorize: { code_challenge_method: 'S256' },
    // Identity comes from the ID token; the profile photo (Graph) is never fetched.
    calls: [
      'GET https://login.microsoftonline.com/common/oauth2/v2.0/authorize',
      'POST https://login.microsoftonline.com/common/oauth2/v2.0/token',
    ],
    tokenPath: '/common/oauth2/v2.0/token',
    rotates: false,
    refreshReturnsRefreshToken: true,
    verifiesEmail: true,
    whoAmI: async (token) =>
      ((await getJson('https://graph.microsoft.com/v1.0/me', token)) as { id: string }).id,
  },
  {
    name: 'the cloud-platform provider (gcp)',
    id: 'gcp',
    start: (person) => startCloudPlatform({ person }),
    callbackPath: '/api/auth/oauth2/callback/gcp',
    scope: CLOUD_PLATFORM_SCOPES.join(' '),
    authorize: { access_type: 'offline', prompt: 'consent', code_challenge_method: 'S256' },
    calls: [
      'GET https://accounts.google.com/o/oauth2/v2/auth',
      'POST https://oauth2.googleapis.com/token',
      // The ID token is verified against Google's published keys (issue 15).
      'GET https://www.googleapis.com/oauth2/v3/certs',
    ],
    tokenPath: '/token',
    rotates: false,
    refreshReturnsRefreshToken: false,
    verifiesEmail: true,
    whoAmI: async (token) =>
      ((await getJson(GOOGLE_OIDC_USERINFO_URL, token)) as { sub: string }).sub,
  },
  {
    name: 'Atlassian',
    id: 'atlassian',
    start: (person) => startAtlassian({ person }),
    callbackPath: '/api/auth/oauth2/callback/atlassian',
    scope: 'read:me read:account offline_access',
    authorize: { audience: 'api.atlassian.com', prompt: 'consent', code_challenge_method: 'S256' },
    calls: [
      'GET https://auth.atlassian.com/authorize',
      'POST https://auth.atlassian.com/oauth/token',
      'GET https://api.atlassian.com/me',
    ],
    tokenPath: '/oauth/token',
    rotates: true,
    refreshReturnsRefreshToken: true,
    verifiesEmail: true,
    whoAmI: async (token) =>
      ((await getJson('https://api.atlassian.com/me', token)) as { account_id: string }).account_id,
  },
  {
    name: 'Slack',
    id: 'slack',
    start: (person) => startSlack({ person }),
    callbackPath: '/api/auth/oauth2/callback/slack',
    scope: 'openid email profile',
    authorize: { code_challenge_method: 'S256' },
    // Sign in with Slack puts the identity in the ID token.
    calls: [
      'GET https://slack.com/openid/connect/authorize',
      'POST https://slack.com/api/openid.connect.token',
      'GET https://slack.com/openid/connect/keys',
    ],
    tokenPath: '/api/openid.connect.token',
    rotates: true,
    refreshReturnsRefreshToken: true,
    verifiesEmail: true,
    whoAmI: async (token) => {
      const body = (await getJson('https://slack.com/api/openid.connect.userInfo', token)) as {
        ok: boolean;
        sub?: string;
      };
      if (!body.ok) throw new Error('Slack refused the token');
      return body.sub ?? '';
    },
  },
  {
    name: 'Linear',
    id: 'linear',
    start: (person) => startLinear({ person }),
    callbackPath: '/api/auth/oauth2/callback/linear',
    scope: 'read',
    authorize: { code_challenge_method: 'S256' },
    // Identity from the GraphQL viewer: the gateway's own lookup (provider-config.ts).
    calls: [
      'GET https://linear.app/oauth/authorize',
      'POST https://api.linear.app/oauth/token',
      'POST https://api.linear.app/graphql',
    ],
    tokenPath: '/oauth/token',
    rotates: true,
    refreshReturnsRefreshToken: true,
    verifiesEmail: false,
    whoAmI: async (token) => {
      const body = (await getJson('https://api.linear.app/graphql', token, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ viewer { id } }' }),
      })) as { data: { viewer: { id: string } } };
      return body.data.viewer.id;
    },
  },
];

/** The public endpoints the test process called, without query strings. */
function calls(idp: ProviderMock): string[] {
  return idp.routing.requests.map(({ method, url }) => `${method} ${url.split('?')[0]}`);
}

async function accounts(gw: TestGateway) {
  return gw.services.database.db
    .selectFrom('account')
    .innerJoin('user', 'user.id', 'account.userId')
    .select(['user.id as userId', 'user.email', 'account.providerId', 'account.accountId'])
    .orderBy('account.providerId')
    .execute();
}

async function signIn(gw: TestGateway, id: string): Promise<string> {
  const landed = await oauthSignIn(browser(gw.fetch, ORIGIN), id);
  expect(landed.searchParams.get('error')).toBeNull();
  const account = await gw.services.database.db
    .selectFrom('account')
    .select('userId')
    .where('providerId', '=', id)
    .executeTakeFirstOrThrow();
  return account.userId;
}

async function stored(gw: TestGateway, userId: string, providerId: string) {
  const row = await gw.services.database.db
    .selectFrom('account')
    .select(['accessToken', 'refreshToken', 'accessTokenExpiresAt'])
    .where('userId', '=', userId)
    .where('providerId', '=', providerId)
    .executeTakeFirstOrThrow();
  const ctx = await (await gw.services.auth.instance()).$context;
  return {
    raw: row,
    accessToken: await decryptOAuthToken(row.accessToken ?? '', ctx),
    refreshToken: row.refreshToken === null ? null : await decryptOAuthToken(row.refreshToken, ctx),
    expiresAt: row.accessTokenExpiresAt === null ? null : new Date(row.accessTokenExpiresAt),
  };
}

async function expireAccessToken(gw: TestGateway, userId: string): Promise<void> {
  await gw.services.database.db
    .updateTable('account')
    .set({ accessTokenExpiresAt: new Date(Date.now() - 60_000) })
    .where('userId', '=', userId)
    .execute();
}

/** `ctx.auth` of a tool call whose plugin declares `id` as an OAuth provider. */
function ctxAuth(gw: TestGateway, userId: string, id: string) {
  return gw.services.tokens.resolverFor(userId, {
    id: 'probe',
    authProviders: [{ id, type: 'oauth2', provider: id, scopes: [] }],
  });
}

const grants = (idp: ProviderMock, path: string, grantType: string) =>
  idp.requests.filter((request) => request === `POST ${path} (${grantType})`).length;

/**
 * In `pnpm test:fast` (`GATEWAY_TEST_FAST`) the matrices below run every provider on SQLite and
 * the first one on PostgreSQL: what differs by provider (endpoints, claims, refresh) is the same
 * code on both databases, and a fresh PostgreSQL schema per test made this the slowest file of
 * the fast tiers. `pnpm test` and CI run every provider on both.
 */
const fast = process.env.GATEWAY_TEST_FAST === '1';
function forDatabase<T>(target: { name: string }, all: readonly T[]): readonly T[] {
  if (!fast || target.name !== 'PostgreSQL') return all;
  console.warn('pnpm test:fast: provider-flows runs one provider on PostgreSQL; pnpm test all');
  return all.slice(0, 1);
}

for (const target of gatewayTargets()) {
  describe.skipIf(target.skip)(`providers with their production settings on ${target.name}`, () => {
    describe.each(forDatabase(target, PROVIDERS))('$name', (expected) => {
      const { id } = expected;

      it('signs in through the real endpoints and stores the tokens encrypted', async () => {
        const idp = await expected.start({ email: `${id}-user@example.test`, name: 'Sam Doe' });
        const gw = await target.create({ env: idp.env });
        expect(Object.keys(idp.env).sort()).toEqual([
          `${id.toUpperCase()}_CLIENT_ID`,
          `${id.toUpperCase()}_CLIENT_SECRET`,
        ]);
        const session = browser(gw.fetch, ORIGIN);

        const landed = await oauthSignIn(session, id);

        expect(landed.pathname).toBe('/signed-in');
        expect(landed.searchParams.get('error')).toBeNull();
        expect(session.jar.has('better-auth.session_token')).toBe(true);
        expect(calls(idp)).toEqual(expected.calls);
        const [authorize] = idp.authorizeRequests;
        expect(authorize?.get('scope')).toBe(expected.scope);
        expect(authorize?.get('redirect_uri')).toBe(`${ORIGIN}${expected.callbackPath}`);
        for (const [name, value] of Object.entries(expected.authorize))
          expect(authorize?.get(name), name).toBe(value);

        expect(await accounts(gw)).toEqual([
          {
            userId: expect.any(String),
            email: `${id}-user@example.test`,
            providerId: id,
            accountId: idp.person.id,
          },
        ]);
        const user = await gw.services.database.db
          .selectFrom('user')
          .select(['name', 'emailVerified'])
          .executeTakeFirstOrThrow();
        expect(user.name).toBe('Sam Doe');
        expect(Boolean(user.emailVerified)).toBe(expected.verifiesEmail);

        const userId = (await accounts(gw))[0]?.userId ?? '';
        const tokens = await stored(gw, userId, id);
        expect(idp.issuedAccessTokens).toHaveLength(1);
        expect(idp.issuedRefreshTokens).toHaveLength(1);
        expect(tokens.raw.accessToken).not.toBe(idp.issuedAccessTokens[0]);
        expect(tokens.raw.refreshToken).not.toBe(idp.issuedRefreshTokens[0]);
        expect(tokens.accessToken).toBe(idp.issuedAccessTokens[0]);
        expect(tokens.refreshToken).toBe(idp.issuedRefreshTokens[0]);
        expect(tokens.expiresAt?.getTime()).toBeGreaterThan(Date.now());

        expect((await session.browse('/api/cli/tokens')).status).toBe(200);
      });

      it(
        expected.verifiesEmail
          ? 'links to the existing user of the same verified email (no account_not_linked)'
          : 'does not link to the existing user of the same email: it reports no verification',
        async () => {
          const discord = await startDiscord({ person: { email: 'lin@example.test' } });
          const idp = await expected.start({ email: 'lin@example.test' });
          const gw = await target.create({ env: { ...discord.env, ...idp.env } });
          await signIn(gw, 'discord');

          const landed = await oauthSignIn(browser(gw.fetch, ORIGIN), id);

          const rows = await accounts(gw);
          if (expected.verifiesEmail) {
            expect(landed.searchParams.get('error')).toBeNull();
            expect(landed.pathname).toBe('/signed-in');
            expect(rows.map((row) => row.providerId).sort()).toEqual(['discord', id].sort());
            expect(new Set(rows.map((row) => row.userId)).size).toBe(1);
          } else {
            expect(landed.searchParams.get('error')).toBe('email_not_verified');
            expect(rows.map((row) => row.providerId)).toEqual(['discord']);
          }
          const users = await gw.services.database.db.selectFrom('user').select('email').execute();
          expect(users).toEqual([{ email: 'lin@example.test' }]);
        },
      );

      it('links explicitly to the signed-in user, even with another email', async () => {
        const idp = await expected.start({ email: 'work@corp.example' });
        const gw = await target.create({ env: idp.env });
        const session = browser(gw.fetch, ORIGIN);
        const signedUp = await session.browse('/api/auth/sign-up/email', {
          body: { email: 'home@example.test', password: 'correct horse battery', name: 'Home' },
        });
        expect(signedUp.status).toBe(200);

        const landed = await oauthSignIn(session, id, { link: true });

        expect(landed.searchParams.get('error')).toBeNull();
        const rows = await accounts(gw);
        expect(new Set(rows.map((row) => row.email))).toEqual(new Set(['home@example.test']));
        expect(rows.map((row) => row.providerId).sort()).toEqual(['credential', id].sort());
      });

      it('refreshes an expired token once for 20 concurrent ctx.auth.getToken calls, and again on the next expiry', async () => {
        const idp = await expected.start();
        const gw = await target.create({ env: idp.env });
        const userId = await signIn(gw, id);
        const before = await stored(gw, userId, id);
        await expireAccessToken(gw, userId);

        const auth = ctxAuth(gw, userId, id);
        const tokens = await Promise.all(Array.from({ length: 20 }, () => auth.getToken(id)));

        expect(idp.refreshCount()).toBe(1);
        expect(grants(idp, expected.tokenPath, 'refresh_token')).toBe(1);
        const refreshed = idp.issuedAccessTokens.at(-1);
        expect(refreshed).not.toBe(before.accessToken);
        expect(new Set(tokens)).toEqual(new Set([refreshed]));
        const after = await stored(gw, userId, id);
        expect(after.accessToken).toBe(refreshed);
        expect(after.expiresAt?.getTime()).toBeGreaterThan(Date.now());
        if (expected.refreshReturnsRefreshToken) {
          expect(idp.issuedRefreshTokens).toHaveLength(2);
          expect(after.refreshToken).toBe(idp.issuedRefreshTokens[1]);
          if (expected.rotates) expect(after.refreshToken).not.toBe(before.refreshToken);
        } else {
          expect(idp.issuedRefreshTokens).toHaveLength(1);
          expect(after.refreshToken).toBe(before.refreshToken);
        }
        expect(await expected.whoAmI(refreshed ?? '')).toBe(idp.person.id);

        // With rotation the first refresh spent the sign-in's refresh token: this one works only
        // if the rotated one was stored.
        await expireAccessToken(gw, userId);
        const second = await auth.getToken(id);
        expect(idp.refreshCount()).toBe(2);
        expect(grants(idp, expected.tokenPath, 'refresh_token')).toBe(2);
        expect(second).toBe(idp.issuedAccessTokens.at(-1));
        expect(await expected.whoAmI(second)).toBe(idp.person.id);
      });

      it('tells the user to reconnect when they revoked the app at the provider', async () => {
        const idp = await expected.start();
        const gw = await target.create({ env: idp.env });
        const userId = await signIn(gw, id);
        await expireAccessToken(gw, userId);
        idp.revokeAccess();

        const error = await ctxAuth(gw, userId, id)
          .getToken(id)
          .catch((e: unknown) => e);

        expect(AuthRequiredError.isInstance(error)).toBe(true);
        expect((error as Error).message).toContain('expired and could not be renewed');
        expect(grants(idp, expected.tokenPath, 'refresh_token')).toBe(1);
        expect(idp.refreshCount()).toBe(0);
        expect(gw.logs()).toContain('OAuth token refresh failed');
      });
    });
  });
}

for (const target of gatewayTargets()) {
  describe.skipIf(target.skip)(`a provider that omits email_verified, on ${target.name}`, () => {
    // Security first: only a provider that says the address is verified links by email match.
    // One that says nothing (Linear always; Atlassian when `/me` leaves the field out; Microsoft
    // without the optional claim) counts as unverified, whatever the trusted list says.
    const silent: readonly { id: string; start(): Promise<ProviderMock> }[] = forDatabase(target, [
      {
        id: 'atlassian',
        start: () =>
          startAtlassian({ person: { email: 'victim@example.test' }, reportsEmailVerified: false }),
      },
      {
        id: 'microsoft',
        start: () =>
          startMicrosoft({ person: { email: 'victim@example.test' }, verifiedEmailClaim: false }),
      },
      { id: 'linear', start: () => startLinear({ person: { email: 'victim@example.test' } }) },
    ]);

    it.each(silent)(
      'does not link $id to the existing user of that email',
      async ({ id, start }) => {
        const discord = await startDiscord({ person: { email: 'victim@example.test' } });
        const silentIdp = await start();
        const gw = await target.create({ env: { ...discord.env, ...silentIdp.env } });
        const victim = await signIn(gw, 'discord');

        const landed = await oauthSignIn(browser(gw.fetch, ORIGIN), id);

        expect(landed.searchParams.get('error')).toBe('email_not_verified');
        expect((await accounts(gw)).map((row) => row.providerId)).toEqual(['discord']);
        const sessions = await gw.services.database.db
          .selectFrom('session')
          .select('userId')
          .execute();
        expect(sessions).toEqual([{ userId: victim }]);
      },
    );

    it.each(silent)(
      'creates a user whose email is unverified on a first $id sign-in',
      async ({ id, start }) => {
        const idp = await start();
        const gw = await target.create({ env: idp.env });

        await signIn(gw, id);

        const user = await gw.services.database.db
          .selectFrom('user')
          .select(['email', 'emailVerified'])
          .executeTakeFirstOrThrow();
        expect(user.email).toBe('victim@example.test');
        expect(Boolean(user.emailVerified)).toBe(false);
      },
    );
  });
}

describe('the cloud-platform provider', () => {
  it("reads identity from Google's OIDC userinfo endpoint, the one it is configured with", async () => {
    const setup = providerSetup(
      { GCP_CLIENT_ID: 'gcp-client', GCP_CLIENT_SECRET: 'gcp-client-secret-0123456789' },
      ORIGIN,
    );
    const gcp = setup.generic.find((config) => config.id === 'gcp');
    expect(gcp?.userInfoUrl).toBe('https://openidconnect.googleapis.com/v1/userinfo');
    expect(gcp?.tokenUrl).toBe('https://oauth2.googleapis.com/token');
    expect(gcp?.authorizationUrl).toBe('https://accounts.google.com/o/oauth2/v2/auth');
    expect(gcp?.scopes).toEqual([...CLOUD_PLATFORM_SCOPES]);

    // An ID token without the email: the callback succeeds only through that userinfo endpoint.
    const idp = await startCloudPlatform({
      person: { email: 'grace@example.test' },
      emailInIdToken: false,
    });
    const gw = await gatewayTargets()[0]!.create({ env: idp.env });

    const landed = await oauthSignIn(browser(gw.fetch, ORIGIN), 'gcp');

    expect(landed.searchParams.get('error')).toBeNull();
    expect(calls(idp)).toEqual([
      'GET https://accounts.google.com/o/oauth2/v2/auth',
      'POST https://oauth2.googleapis.com/token',
      'GET https://www.googleapis.com/oauth2/v3/certs',
      'GET https://openidconnect.googleapis.com/v1/userinfo',
    ]);
    expect((await accounts(gw)).map((row) => [row.email, row.accountId])).toEqual([
      ['grace@example.test', idp.person.id],
    ]);
  });
});
