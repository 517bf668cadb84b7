import { AuthRequiredError } from '@gateway/sdk';
import { decryptOAuthToken } from 'better-auth/oauth2';
import { describe, expect, it } from 'vitest';
import { browser, gatewayTargets, oauthSignIn } from '#test/auth/oauth-test-kit.js';
import {
  type SocialProviderId,
  type SocialProviderMock,
  startDiscord,
  startGitHub,
  startGoogle,
} from '#test/auth/social-providers.js';
import { sharedDatabaseTargets } from '#test/support/shared-database.js';
import { createTestGateway, type TestGateway } from '#test/support/test-gateway.js';

// A tool's `ctx.auth.getToken(provider)` for the social providers, against a real local OAuth
// server playing each one (test/auth/social-providers.ts): the token stored at sign-in, refreshed at
// the provider's real token endpoint when it expires. Refresh tokens are checked by the server
// like the real providers check them, so a refresh with a spent (rotated) token fails here too.

const ORIGIN = 'http://127.0.0.1:8787';

/** The providers whose tokens expire, and how each treats refresh tokens. */
const REFRESHING: {
  name: string;
  id: SocialProviderId;
  start: () => Promise<SocialProviderMock>;
  tokenPath: string;
  rotates: boolean;
}[] = [
  { name: 'Google', id: 'google', start: () => startGoogle(), tokenPath: '/token', rotates: false },
  {
    name: 'Discord',
    id: 'discord',
    start: () => startDiscord(),
    tokenPath: '/api/oauth2/token',
    rotates: true,
  },
  {
    name: 'GitHub (a GitHub App with expiring user tokens)',
    id: 'github',
    start: () => startGitHub({ expiringTokens: true }),
    tokenPath: '/login/oauth/access_token',
    rotates: true,
  },
];

/** Asks the provider's own API who `token` belongs to, as a tool would use the token. */
async function whoAmI(id: SocialProviderId, token: string): Promise<string> {
  const url = {
    github: 'https://api.github.com/user',
    google: 'https://openidconnect.googleapis.com/v1/userinfo',
    discord: 'https://discord.com/api/users/@me',
  }[id];
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${token}`, 'user-agent': 'gateway-tests' },
  });
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  const body = (await response.json()) as { id?: unknown; sub?: unknown };
  return String(body.id ?? body.sub);
}

async function signIn(gw: TestGateway, id: SocialProviderId): Promise<string> {
  const landed = await oauthSignIn(browser(gw.fetch, ORIGIN), id);
  expect(landed.searchParams.get('error')).toBeNull();
  const account = await gw.services.database.db
    .selectFrom('account')
    .select('userId')
    .where('providerId', '=', id)
    .executeTakeFirstOrThrow();
  return account.userId;
}

async function expireAccessToken(gw: TestGateway, userId: string): Promise<void> {
  await gw.services.database.db
    .updateTable('account')
    .set({ accessTokenExpiresAt: new Date(Date.now() - 60_000) })
    .where('userId', '=', userId)
    .execute();
}

async function stored(gw: TestGateway, userId: string) {
  const row = await gw.services.database.db
    .selectFrom('account')
    .select(['accessToken', 'refreshToken', 'accessTokenExpiresAt'])
    .where('userId', '=', userId)
    .executeTakeFirstOrThrow();
  const ctx = await (await gw.services.auth.instance()).$context;
  return {
    accessToken: await decryptOAuthToken(row.accessToken ?? '', ctx),
    refreshToken: row.refreshToken === null ? null : await decryptOAuthToken(row.refreshToken, ctx),
    expiresAt: row.accessTokenExpiresAt === null ? null : new Date(row.accessTokenExpiresAt),
  };
}

/** A plugin's auth provider entry asking for the user's `id` OAuth account. */
function oauthEntry(id: SocialProviderId) {
  return { id, type: 'oauth2', provider: id, scopes: [] } as const;
}

/** `ctx.auth` of a tool call whose plugin declares `id` as an OAuth provider. */
function ctxAuth(gw: TestGateway, userId: string, id: SocialProviderId) {
  return gw.services.tokens.resolverFor(userId, { id: 'probe', authProviders: [oauthEntry(id)] });
}

const refreshGrants = (idp: SocialProviderMock, path: string) =>
  idp.requests.filter((request) => request === `POST ${path} (refresh_token)`).length;

for (const target of gatewayTargets()) {
  describe.skipIf(target.skip)(`social provider tokens on ${target.name}`, () => {
    describe.each(REFRESHING)('$name', ({ id, start, tokenPath, rotates }) => {
      it('refreshes an expired token once for 20 concurrent ctx.auth.getToken calls, and the new token works', async () => {
        const idp = await start();
        const gw = await target.create({ env: idp.env });
        const userId = await signIn(gw, id);
        const before = await stored(gw, userId);
        await expireAccessToken(gw, userId);

        const auth = ctxAuth(gw, userId, id);
        const tokens = await Promise.all(Array.from({ length: 20 }, () => auth.getToken(id)));

        expect(idp.refreshCount()).toBe(1);
        expect(refreshGrants(idp, tokenPath)).toBe(1);
        const refreshed = idp.issuedAccessTokens.at(-1);
        expect(refreshed).not.toBe(before.accessToken);
        expect(new Set(tokens)).toEqual(new Set([refreshed]));
        const after = await stored(gw, userId);
        expect(after.accessToken).toBe(refreshed);
        expect(after.expiresAt?.getTime()).toBeGreaterThan(Date.now());
        if (rotates) {
          expect(after.refreshToken).toBe(idp.issuedRefreshTokens.at(-1));
          expect(after.refreshToken).not.toBe(before.refreshToken);
        } else {
          // Google keeps the refresh token: none comes back, and the stored one stays.
          expect(idp.issuedRefreshTokens).toHaveLength(1);
          expect(after.refreshToken).toBe(before.refreshToken);
        }
        expect(await whoAmI(id, refreshed ?? '')).toBe(idp.person.id);

        // Fresh now: served from storage, no further refresh.
        expect(await gw.services.tokens.vend(userId, id, { authProvider: oauthEntry(id) })).toEqual(
          { token: refreshed, source: 'oauth' },
        );
        expect(idp.refreshCount()).toBe(1);
      });

      it('refreshes again on the next expiry with the refresh token it stored', async () => {
        const idp = await start();
        const gw = await target.create({ env: idp.env });
        const userId = await signIn(gw, id);
        const auth = ctxAuth(gw, userId, id);

        await expireAccessToken(gw, userId);
        await auth.getToken(id);
        await expireAccessToken(gw, userId);
        const second = await auth.getToken(id);

        // With rotation the first refresh spent the sign-in's refresh token: the second refresh
        // works only if the rotated one was stored.
        expect(idp.refreshCount()).toBe(2);
        expect(second).toBe(idp.issuedAccessTokens.at(-1));
        expect(await whoAmI(id, second)).toBe(idp.person.id);
      });

      it('tells the user to reconnect when they revoked the app at the provider', async () => {
        const idp = await start();
        const gw = await target.create({ env: idp.env });
        const userId = await signIn(gw, id);
        await expireAccessToken(gw, userId);
        idp.revokeAccess();

        const error = await ctxAuth(gw, userId, id)
          .getToken(id)
          .catch((e: unknown) => e);

        expect(AuthRequiredError.isInstance(error)).toBe(true);
        expect((error as Error).message).toContain('expired and could not be renewed');
        expect(refreshGrants(idp, tokenPath)).toBe(1);
        expect(idp.refreshCount()).toBe(0);
        expect(gw.logs()).toContain('OAuth token refresh failed');
      });
    });

    it('vends a GitHub OAuth App token as it is: it never expires and comes with nothing to refresh it', async () => {
      const github = await startGitHub();
      const gw = await target.create({ env: github.env });
      const userId = await signIn(gw, 'github');

      const token = await ctxAuth(gw, userId, 'github').getToken('github');

      expect(token).toBe(github.issuedAccessTokens[0]);
      expect(await stored(gw, userId)).toMatchObject({ refreshToken: null, expiresAt: null });
      expect(github.issuedRefreshTokens).toEqual([]);
      expect(refreshGrants(github, '/login/oauth/access_token')).toBe(0);
      expect(await whoAmI('github', token)).toBe(github.person.id);
    });
  });
}

describe.each(sharedDatabaseTargets())(
  'social token refresh across instances on $name',
  (shared) => {
    it.skipIf(shared.skip)(
      'spends a rotating Discord refresh token once when two instances refresh at the same moment',
      async () => {
        const discord = await startDiscord();
        const databaseUrl = await shared.databaseUrl();
        const one = await createTestGateway({ env: discord.env, databaseUrl });
        const two = await createTestGateway({ env: discord.env, databaseUrl });
        const userId = await signIn(one, 'discord');
        await expireAccessToken(one, userId);

        const tokens = await Promise.all(
          Array.from({ length: 40 }, (_, i) =>
            ctxAuth(i % 2 === 0 ? one : two, userId, 'discord').getToken('discord'),
          ),
        );

        // A second refresh would have been refused (the token is spent) and failed some calls.
        expect(refreshGrants(discord, '/api/oauth2/token')).toBe(1);
        expect(new Set(tokens)).toEqual(new Set([discord.issuedAccessTokens.at(-1)]));
      },
    );
  },
);
