import { decryptOAuthToken } from 'better-auth/oauth2';
import { describe, expect, it } from 'vitest';
import { browser, gatewayTargets, oauthSignIn } from '#test/auth/oauth-test-kit.js';
import {
  type SocialProviderId,
  type SocialProviderMock,
  startGitHub,
  startGoogle,
  startSocialProvider,
} from '#test/auth/social-providers.js';
import { createTestGateway, type TestGateway } from '#test/support/test-gateway.js';

// GitHub, Google and Discord are better-auth social providers with hard-coded endpoints. Here
// those public hosts are routed, in this test process only, to a real local OAuth server playing
// each provider (test/auth/social-providers.ts); the gateway and better-auth run unmodified.

const ORIGIN = 'http://127.0.0.1:8787';
const PROVIDERS: SocialProviderId[] = ['github', 'google', 'discord'];

/** What each provider is asked for at sign-in, and which of its public endpoints serve it. */
const EXPECTED: Record<
  SocialProviderId,
  { scope: string; authorize: Record<string, string>; calls: string[]; refreshes: boolean }
> = {
  github: {
    scope: 'read:user user:email',
    authorize: { code_challenge_method: 'S256' },
    calls: [
      'GET https://github.com/login/oauth/authorize',
      'POST https://github.com/login/oauth/access_token',
      'GET https://api.github.com/user',
      'GET https://api.github.com/user/emails',
    ],
    // An OAuth App's token never expires and comes without a refresh token.
    refreshes: false,
  },
  google: {
    scope: 'email profile openid',
    authorize: {
      access_type: 'offline',
      prompt: 'select_account consent',
      code_challenge_method: 'S256',
    },
    // Identity comes from the ID token of the token response: no userinfo call.
    calls: [
      'GET https://accounts.google.com/o/oauth2/v2/auth',
      'POST https://oauth2.googleapis.com/token',
    ],
    refreshes: true,
  },
  discord: {
    scope: 'identify email',
    authorize: {},
    calls: [
      'GET https://discord.com/api/oauth2/authorize',
      'POST https://discord.com/api/oauth2/token',
      'GET https://discord.com/api/users/%40me',
    ],
    refreshes: true,
  },
};

async function accounts(gw: TestGateway) {
  return gw.services.database.db
    .selectFrom('account')
    .innerJoin('user', 'user.id', 'account.userId')
    .select(['user.id as userId', 'user.email', 'account.providerId', 'account.accountId'])
    .orderBy('account.providerId')
    .execute();
}

/** The public endpoints the test process called, without query strings. */
function calls(idp: SocialProviderMock): string[] {
  return idp.routing.requests.map(({ method, url }) => `${method} ${url.split('?')[0]}`);
}

for (const target of gatewayTargets()) {
  describe.skipIf(target.skip)(`social sign-in against local providers on ${target.name}`, () => {
    describe.each(PROVIDERS)('%s', (id) => {
      it('signs in through the real endpoints and stores the tokens encrypted', async () => {
        const idp = await startSocialProvider(id, {
          person: { email: `${id}-user@example.test`, name: 'Sam Doe' },
        });
        const gw = await target.create({ env: idp.env });
        const session = browser(gw.fetch, ORIGIN);

        const landed = await oauthSignIn(session, id);

        expect(landed.pathname).toBe('/signed-in');
        expect(landed.searchParams.get('error')).toBeNull();
        expect(session.jar.has('better-auth.session_token')).toBe(true);
        expect(calls(idp)).toEqual(EXPECTED[id].calls);
        const [authorize] = idp.authorizeRequests;
        expect(authorize?.get('scope')).toBe(EXPECTED[id].scope);
        expect(authorize?.get('redirect_uri')).toBe(`${ORIGIN}/api/auth/callback/${id}`);
        for (const [name, value] of Object.entries(EXPECTED[id].authorize))
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
        expect(Boolean(user.emailVerified)).toBe(true);

        const row = await gw.services.database.db
          .selectFrom('account')
          .select(['accessToken', 'refreshToken', 'accessTokenExpiresAt'])
          .executeTakeFirstOrThrow();
        const ctx = await (await gw.services.auth.instance()).$context;
        expect(idp.issuedAccessTokens).toHaveLength(1);
        expect(row.accessToken).not.toBe(idp.issuedAccessTokens[0]);
        expect(await decryptOAuthToken(row.accessToken ?? '', ctx)).toBe(idp.issuedAccessTokens[0]);
        if (EXPECTED[id].refreshes) {
          expect(idp.issuedRefreshTokens).toHaveLength(1);
          expect(row.refreshToken).not.toBe(idp.issuedRefreshTokens[0]);
          expect(await decryptOAuthToken(row.refreshToken ?? '', ctx)).toBe(
            idp.issuedRefreshTokens[0],
          );
          expect(new Date(row.accessTokenExpiresAt ?? 0).getTime()).toBeGreaterThan(Date.now());
        } else {
          expect(row.refreshToken).toBeNull();
          expect(row.accessTokenExpiresAt).toBeNull();
        }

        // The session authenticates the API as that user.
        expect((await session.browse('/api/cli/tokens')).status).toBe(200);
      });

      it('links a second provider with the same email to the same user (no account_not_linked)', async () => {
        const other = PROVIDERS[(PROVIDERS.indexOf(id) + 1) % PROVIDERS.length] ?? 'github';
        const first = await startSocialProvider(other, { person: { email: 'lin@example.test' } });
        const second = await startSocialProvider(id, { person: { email: 'lin@example.test' } });
        const gw = await target.create({ env: { ...first.env, ...second.env } });

        const one = await oauthSignIn(browser(gw.fetch, ORIGIN), other);
        expect(one.searchParams.get('error')).toBeNull();
        // A fresh browser: a plain second sign-in, not an explicit link.
        const two = await oauthSignIn(browser(gw.fetch, ORIGIN), id);

        expect(two.searchParams.get('error')).toBeNull();
        expect(two.pathname).toBe('/signed-in');
        const rows = await accounts(gw);
        expect(rows.map((row) => row.providerId).sort()).toEqual([id, other].sort());
        expect(new Set(rows.map((row) => row.userId)).size).toBe(1);
        const users = await gw.services.database.db.selectFrom('user').select('email').execute();
        expect(users).toEqual([{ email: 'lin@example.test' }]);
      });

      it('links explicitly to a signed-in email-and-password user, even with another email', async () => {
        const idp = await startSocialProvider(id, { person: { email: 'work@corp.example' } });
        const gw = await target.create({ env: idp.env });
        const session = browser(gw.fetch, ORIGIN);
        const signedUp = await session.browse('/api/auth/sign-up/email', {
          body: { email: 'home@example.test', password: 'correct horse battery', name: 'Home' },
        });
        expect(signedUp.status).toBe(200);

        const landed = await oauthSignIn(session, id, { link: true });

        expect(landed.searchParams.get('error')).toBeNull();
        expect((await accounts(gw)).map((row) => [row.email, row.providerId])).toEqual([
          ['home@example.test', 'credential'],
          ['home@example.test', id],
        ]);
      });
    });
  });
}

for (const target of gatewayTargets()) {
  describe.skipIf(target.skip)(`an email the provider has not verified on ${target.name}`, () => {
    // Trusted providers (the spec puts every shipped one in the list) link by email match. An
    // address nobody proved must not open an existing account: anyone could type it in.
    it.each(['github', 'discord'] as const)(
      'does not link %s to the existing account of that email on sign-in',
      async (id) => {
        const google = await startGoogle({ person: { email: 'victim@example.test' } });
        const attacker = await startSocialProvider(id, {
          person: { email: 'victim@example.test', emailVerified: false },
        });
        const gw = await target.create({ env: { ...google.env, ...attacker.env } });
        expect(
          (await oauthSignIn(browser(gw.fetch, ORIGIN), 'google')).searchParams.get('error'),
        ).toBeNull();

        const landed = await oauthSignIn(browser(gw.fetch, ORIGIN), id);

        expect(landed.searchParams.get('error')).toBe('email_not_verified');
        expect((await accounts(gw)).map((row) => row.providerId)).toEqual(['google']);
        const sessions = await gw.services.database.db
          .selectFrom('session')
          .select('userId')
          .execute();
        expect(sessions).toHaveLength(1);
      },
    );

    it('still lets the signed-in owner link such an account explicitly', async () => {
      const discord = await startSocialProvider('discord', {
        person: { email: 'home@example.test', emailVerified: false },
      });
      const gw = await target.create({ env: discord.env });
      const session = browser(gw.fetch, ORIGIN);
      const signedUp = await session.browse('/api/auth/sign-up/email', {
        body: { email: 'home@example.test', password: 'correct horse battery', name: 'Home' },
      });
      expect(signedUp.status).toBe(200);

      const landed = await oauthSignIn(session, 'discord', { link: true });

      expect(landed.searchParams.get('error')).toBeNull();
      expect((await accounts(gw)).map((row) => row.providerId)).toEqual(['credential', 'discord']);
    });
  });
}

describe('provider specifics', () => {
  it("takes a GitHub user's private email from /user/emails, and leaves an unverified one unlinked", async () => {
    // GitHub reports the primary email as unverified: the user is created with an unverified
    // email, so a later sign-in elsewhere with that address must not take the account over.
    const github = await startGitHub({
      person: { email: 'kim@example.test', emailVerified: false },
    });
    const google = await startGoogle({ person: { email: 'kim@example.test' } });
    const gw = await createTestGateway({ env: { ...github.env, ...google.env } });

    const first = await oauthSignIn(browser(gw.fetch, ORIGIN), 'github');
    expect(first.searchParams.get('error')).toBeNull();
    expect(github.requests).toContain('GET /user/emails');
    const user = await gw.services.database.db
      .selectFrom('user')
      .select(['email', 'emailVerified'])
      .executeTakeFirstOrThrow();
    expect(user.email).toBe('kim@example.test');
    expect(Boolean(user.emailVerified)).toBe(false);

    const second = await oauthSignIn(browser(gw.fetch, ORIGIN), 'google');
    expect(second.searchParams.get('error')).toBe('account_not_linked');
    expect((await accounts(gw)).map((row) => row.providerId)).toEqual(['github']);
  });

  it('fails a GitHub sign-in with unable_to_get_user_info when GitHub refuses the token', async () => {
    const github = await startGitHub();
    // The user revokes the app between the token exchange and the profile lookup.
    github.server.service.prependOnceListener('beforeUserinfo', () => github.revokeAccess());
    const gw = await createTestGateway({ env: github.env });

    const landed = await oauthSignIn(browser(gw.fetch, ORIGIN), 'github');

    expect(landed.searchParams.get('error')).toBe('unable_to_get_user_info');
    expect(await accounts(gw)).toEqual([]);
  });

  it('keeps getting a Google refresh token on later sign-ins, because it asks for consent', async () => {
    // Google issues a refresh token on the first consent only, unless the request says
    // prompt=consent: without it a second sign-in would leave no way to renew the new token.
    const google = await startGoogle({ person: { email: 'ida@example.test' } });
    const gw = await createTestGateway({ env: google.env });

    await oauthSignIn(browser(gw.fetch, ORIGIN), 'google');
    const again = await oauthSignIn(browser(gw.fetch, ORIGIN), 'google');

    expect(again.searchParams.get('error')).toBeNull();
    expect(google.issuedRefreshTokens).toHaveLength(2);
    const row = await gw.services.database.db
      .selectFrom('account')
      .select('refreshToken')
      .executeTakeFirstOrThrow();
    expect(
      await decryptOAuthToken(
        row.refreshToken ?? '',
        await (await gw.services.auth.instance()).$context,
      ),
    ).toBe(google.issuedRefreshTokens[1]);
  });

  it('fails the callback with invalid_code when the provider refuses the client secret', async () => {
    const discord = await startSocialProvider('discord');
    const gw = await createTestGateway({
      env: { ...discord.env, DISCORD_CLIENT_SECRET: 'not-the-registered-secret-0123' },
    });

    const landed = await oauthSignIn(browser(gw.fetch, ORIGIN), 'discord');

    expect(landed.searchParams.get('error')).toBe('invalid_code');
    expect(discord.requests).toContain('POST /api/oauth2/token (authorization_code)');
    expect(discord.issuedAccessTokens).toEqual([]);
  });
});
