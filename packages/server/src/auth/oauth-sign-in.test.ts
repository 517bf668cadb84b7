import { decryptOAuthToken } from 'better-auth/oauth2';
import { describe, expect, it } from 'vitest';
import {
  browser,
  gatewayTargets,
  genericProviderEnv,
  MICROSOFT_ENDPOINTS,
  microsoftEnv,
  oauthSignIn,
  startMockProvider,
} from '#test/auth/oauth-test-kit.js';
import type { TestGateway } from '#test/support/test-gateway.js';
import { STANDARD_OIDC_SCOPES } from './generic-oidc/index.js';

const ORIGIN = 'http://127.0.0.1:8787';

async function accounts(gw: TestGateway) {
  return gw.services.database.db
    .selectFrom('account')
    .innerJoin('user', 'user.id', 'account.userId')
    .select(['user.id as userId', 'user.email', 'account.providerId', 'account.accountId'])
    .orderBy('account.providerId')
    .execute();
}

for (const target of gatewayTargets()) {
  describe.skipIf(target.skip)(
    `OAuth sign-in against a local OAuth server on ${target.name}`,
    () => {
      it('signs in with a social provider (Microsoft) and stores its tokens encrypted', async () => {
        const idp = await startMockProvider({
          endpoints: MICROSOFT_ENDPOINTS,
          claims: { oid: 'ms-oid-1', email: 'ada@example.test', name: 'Ada', tid: 'tenant-1' },
        });
        const gw = await target.create({ env: microsoftEnv(idp) });
        const session = browser(gw.fetch, ORIGIN);

        const landed = await oauthSignIn(session, 'microsoft');

        expect(landed.pathname).toBe('/signed-in');
        expect(landed.searchParams.get('error')).toBeNull();
        expect(session.jar.has('better-auth.session_token')).toBe(true);
        expect(await accounts(gw)).toEqual([
          {
            userId: expect.any(String),
            email: 'ada@example.test',
            providerId: 'microsoft',
            accountId: 'ms-oid-1',
          },
        ]);
        const row = await gw.services.database.db
          .selectFrom('account')
          .selectAll()
          .executeTakeFirstOrThrow();
        const issued = idp.issuedAccessTokens.at(-1);
        expect(row.accessToken).not.toBe(issued);
        expect(row.refreshToken).not.toBe(idp.issuedRefreshTokens.at(-1));
        const ctx = await (await gw.services.auth.instance()).$context;
        expect(await decryptOAuthToken(row.accessToken ?? '', ctx)).toBe(issued);
        expect(await decryptOAuthToken(row.refreshToken ?? '', ctx)).toBe(
          idp.issuedRefreshTokens.at(-1),
        );
        expect(new Date(row.accessTokenExpiresAt ?? 0).getTime()).toBeGreaterThan(Date.now());

        // The session authenticates the API as that user.
        const me = await session.browse('/api/cli/tokens');
        expect(me.status).toBe(200);
      });

      it('signs in with the cloud-platform provider through generic OAuth, on the pinned callback path', async () => {
        const idp = await startMockProvider({
          claims: { sub: 'gcp-sub-1', email: 'grace@example.test', name: 'Grace' },
        });
        // The mock's ID token carries no email, so identity must come from the userinfo endpoint:
        // the callback fails with user_info_is_missing (unable_to_get_user_info) if it is not used.
        idp.server.service.on('beforeTokenSigning', (token) => {
          delete token.payload.email;
        });
        const gw = await target.create({ env: genericProviderEnv('gcp', idp) });
        const session = browser(gw.fetch, ORIGIN);

        const started = await session.browse('/api/auth/sign-in/social', {
          body: { provider: 'gcp', callbackURL: '/signed-in', disableRedirect: true },
        });
        const authorizeUrl = new URL(((await started.json()) as { url: string }).url);
        // Pointed at another server, gcp is a standard provider: standard scopes with
        // offline_access, and none of Google's own parameters (issue 15).
        expect(authorizeUrl.searchParams.get('scope')?.split(' ')).toEqual([
          ...STANDARD_OIDC_SCOPES,
        ]);
        expect(authorizeUrl.searchParams.get('redirect_uri')).toBe(
          `${ORIGIN}/api/auth/oauth2/callback/gcp`,
        );
        expect(authorizeUrl.searchParams.get('access_type')).toBeNull();
        expect(authorizeUrl.searchParams.get('prompt')).toBe('consent');
        expect(authorizeUrl.searchParams.get('code_challenge_method')).toBe('S256');

        const toCallback = await session.browse(authorizeUrl.toString());
        const callback = new URL(toCallback.headers.get('location') ?? '');
        expect(callback.pathname).toBe('/api/auth/oauth2/callback/gcp');
        const { url: landed } = await session.follow(
          toCallback,
          (next) => next.pathname === '/signed-in' || next.pathname.endsWith('/error'),
        );

        expect(landed?.pathname).toBe('/signed-in');
        expect(landed?.searchParams.get('error')).toBeNull();
        expect(session.jar.has('better-auth.session_token')).toBe(true);
        expect(await accounts(gw)).toEqual([
          {
            userId: expect.any(String),
            email: 'grace@example.test',
            providerId: 'gcp',
            accountId: 'gcp-sub-1',
          },
        ]);
        const row = await gw.services.database.db
          .selectFrom('account')
          .select(['scope', 'refreshToken'])
          .executeTakeFirstOrThrow();
        expect(row.refreshToken).not.toBeNull();
      });

      it('links a second provider with the same email to the same user (no account_not_linked)', async () => {
        const microsoft = await startMockProvider({
          endpoints: MICROSOFT_ENDPOINTS,
          claims: { oid: 'ms-oid-2', email: 'lin@example.test', name: 'Lin', tid: 'tenant-1' },
        });
        const gcp = await startMockProvider({
          claims: { sub: 'gcp-sub-2', email: 'lin@example.test', name: 'Lin' },
        });
        const gw = await target.create({
          env: { ...microsoftEnv(microsoft), ...genericProviderEnv('gcp', gcp) },
        });

        const first = await oauthSignIn(browser(gw.fetch, ORIGIN), 'microsoft');
        expect(first.searchParams.get('error')).toBeNull();
        // A fresh browser: a plain second sign-in, not an explicit link.
        const second = await oauthSignIn(browser(gw.fetch, ORIGIN), 'gcp');
        expect(second.searchParams.get('error')).toBeNull();
        expect(second.pathname).toBe('/signed-in');

        const rows = await accounts(gw);
        expect(rows.map((row) => row.providerId)).toEqual(['gcp', 'microsoft']);
        expect(new Set(rows.map((row) => row.userId)).size).toBe(1);
        const users = await gw.services.database.db.selectFrom('user').select('email').execute();
        expect(users).toEqual([{ email: 'lin@example.test' }]);
      });

      it('links a provider explicitly to a signed-in user, even with another email', async () => {
        const gcp = await startMockProvider({
          claims: { sub: 'gcp-sub-3', email: 'work@corp.example', name: 'Work' },
        });
        const gw = await target.create({ env: genericProviderEnv('gcp', gcp) });
        const session = browser(gw.fetch, ORIGIN);
        const signedUp = await session.browse('/api/auth/sign-up/email', {
          body: { email: 'home@example.test', password: 'correct horse battery', name: 'Home' },
        });
        expect(signedUp.status).toBe(200);

        const landed = await oauthSignIn(session, 'gcp', { link: true });

        expect(landed.searchParams.get('error')).toBeNull();
        const rows = await accounts(gw);
        expect(rows.map((row) => [row.email, row.providerId])).toEqual([
          ['home@example.test', 'credential'],
          ['home@example.test', 'gcp'],
        ]);
      });
    },
  );
}

for (const target of gatewayTargets()) {
  describe.skipIf(target.skip)(`account linking refusal on ${target.name}`, () => {
    it('does not link a provider to an email-and-password user whose email nobody verified', async () => {
      const gcp = await startMockProvider({
        claims: { sub: 'gcp-sub-4', email: 'mallory@example.test' },
      });
      const gw = await target.create({ env: genericProviderEnv('gcp', gcp) });
      // Someone registers the address first, with a password, without proving they own it.
      await browser(gw.fetch, ORIGIN).browse('/api/auth/sign-up/email', {
        body: { email: 'mallory@example.test', password: 'correct horse battery', name: 'M' },
      });
      const landed = await oauthSignIn(browser(gw.fetch, ORIGIN), 'gcp');
      expect(landed.searchParams.get('error')).toBe('account_not_linked');
    });

    it('fails the cloud-platform callback with unable_to_get_user_info when identity cannot be fetched', async () => {
      const gcp = await startMockProvider({
        claims: { sub: 'gcp-sub-5', email: 'x@example.test' },
      });
      gcp.server.service.on('beforeTokenSigning', (token) => {
        delete token.payload.email;
      });
      const gw = await target.create({
        env: { ...genericProviderEnv('gcp', gcp), GCP_USERINFO_URL: `${gcp.url}/no-such-userinfo` },
      });
      const landed = await oauthSignIn(browser(gw.fetch, ORIGIN), 'gcp');
      expect(landed.searchParams.get('error')).toBe('unable_to_get_user_info');
    });
  });
}
