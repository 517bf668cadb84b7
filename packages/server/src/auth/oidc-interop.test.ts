import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AuthRequiredError } from '@gateway/sdk';
import { decryptOAuthToken } from 'better-auth/oauth2';
import {
  decodeJwt,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  importJWK,
  SignJWT,
} from 'jose';
import { describe, expect, it, onTestFinished } from 'vitest';
import { browser } from '#test/auth/oauth-test-kit.js';
import {
  loginAtProvider,
  type OidcProviderServer,
  startOidcProvider,
} from '#test/auth/oidc-provider-server.js';
import { createTestGateway, type TestGateway } from '#test/support/test-gateway.js';

// Issue 15: the gateway against panva's certified OpenID Provider (`oidc-provider`) on
// 127.0.0.1, configured as the generic provider `gcp` both through discovery (`GCP_ISSUER_URL`)
// and with every endpoint set explicitly.

const ORIGIN = 'http://127.0.0.1:8787';
const CALLBACK = `${ORIGIN}/api/auth/oauth2/callback/gcp`;

type Mode = 'discovery' | 'explicit';

function envFor(idp: OidcProviderServer, mode: Mode, tokenUrl?: string) {
  return {
    GCP_CLIENT_ID: idp.clientId,
    GCP_CLIENT_SECRET: idp.clientSecret,
    GCP_ISSUER_URL: idp.issuer,
    ...(mode === 'explicit'
      ? {
          GCP_AUTHORIZATION_URL: `${idp.issuer}/auth`,
          GCP_TOKEN_URL: `${idp.issuer}/token`,
          GCP_USERINFO_URL: `${idp.issuer}/me`,
          GCP_JWKS_URL: `${idp.issuer}/jwks`,
        }
      : {}),
    ...(tokenUrl === undefined ? {} : { GCP_TOKEN_URL: tokenUrl }),
  };
}

async function signIn(
  gw: TestGateway,
  options: {
    link?: boolean;
    session?: ReturnType<typeof browser>;
    tamper?: (url: URL) => void;
  } = {},
) {
  const session = options.session ?? browser(gw.fetch, ORIGIN);
  const path = options.link ? '/api/auth/link-social' : '/api/auth/sign-in/social';
  const started = await session.browse(path, {
    body: { provider: 'gcp', callbackURL: '/signed-in', disableRedirect: true },
  });
  expect(started.status).toBe(200);
  const { url } = (await started.json()) as { url: string };
  const callback = await loginAtProvider(url);
  options.tamper?.(callback);
  const answered = await session.browse(callback.toString());
  const { url: landed } = await session.follow(
    answered,
    (next) => next.pathname === '/signed-in' || next.searchParams.has('error'),
  );
  return { session, landed, authorizeUrl: new URL(url) };
}

async function account(gw: TestGateway) {
  return gw.services.database.db
    .selectFrom('account')
    .select(['id', 'userId', 'accessToken', 'refreshToken', 'accessTokenExpiresAt'])
    .where('providerId', '=', 'gcp')
    .executeTakeFirstOrThrow();
}

async function expireAccessToken(gw: TestGateway) {
  await gw.services.database.db
    .updateTable('account')
    .set({ accessTokenExpiresAt: new Date(Date.now() - 1000) })
    .where('providerId', '=', 'gcp')
    .execute();
}

/** A token endpoint in front of the provider's that rewrites the ID token with `forge`. */
async function forgingTokenEndpoint(
  idp: OidcProviderServer,
  forge: (idToken: string) => Promise<string>,
) {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const upstream = await fetch(`${idp.issuer}/token`, {
      method: 'POST',
      headers: {
        'content-type': req.headers['content-type'] ?? '',
        authorization: req.headers.authorization ?? '',
      },
      body: Buffer.concat(chunks),
    });
    const body = (await upstream.json()) as Record<string, unknown>;
    if (typeof body.id_token === 'string') body.id_token = await forge(body.id_token);
    res.writeHead(upstream.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
}

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

async function resign(
  idToken: string,
  change: Record<string, unknown>,
  key: Parameters<typeof importJWK>[0],
) {
  const claims = { ...decodeJwt(idToken), ...change };
  const { kid } = decodeProtectedHeader(idToken);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid: kid ?? 'op-key-1' })
    .sign(await importJWK(key, 'RS256'));
}

const now = () => Math.floor(Date.now() / 1000);

const FORGERIES: Record<string, (idp: OidcProviderServer) => (idToken: string) => Promise<string>> =
  {
    'a bad signature': () => async (idToken) => {
      const { privateKey } = await generateKeyPair('RS256', { extractable: true });
      return resign(idToken, { sub: 'mallory' }, await exportJWK(privateKey));
    },
    'another audience': (idp) => (idToken) =>
      resign(idToken, { aud: 'another-client' }, idp.signingKey),
    'another issuer': (idp) => (idToken) =>
      resign(idToken, { iss: 'http://evil.example' }, idp.signingKey),
    'another nonce': (idp) => (idToken) =>
      resign(idToken, { nonce: 'not-this-sign-in' }, idp.signingKey),
    'an expired token': (idp) => (idToken) =>
      resign(idToken, { exp: now() - 600, iat: now() - 4200 }, idp.signingKey),
    'another authorized party': (idp) => (idToken) =>
      resign(idToken, { aud: [idp.clientId, 'other'], azp: 'other' }, idp.signingKey),
    'alg none': () => async (idToken) =>
      `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url({ ...decodeJwt(idToken), sub: 'mallory' })}.`,
  };

for (const mode of ['discovery', 'explicit'] as const) {
  describe(`oidc-provider as a generic provider (${mode})`, () => {
    it('signs in, asking for offline_access with consent and a nonce, and verifies the ID token', async () => {
      const idp = await startOidcProvider({ redirectUri: CALLBACK });
      const gw = await createTestGateway({ env: envFor(idp, mode) });
      const { landed, session, authorizeUrl } = await signIn(gw);
      expect(landed?.searchParams.get('error')).toBeNull();
      expect(landed?.pathname).toBe('/signed-in');
      expect(session.jar.has('better-auth.session_token')).toBe(true);
      expect(authorizeUrl.searchParams.get('scope')).toBe('openid email profile offline_access');
      expect(authorizeUrl.searchParams.get('prompt')).toBe('consent');
      expect(authorizeUrl.searchParams.get('nonce')).toMatch(/.{16,}/);
      expect(authorizeUrl.searchParams.get('access_type')).toBeNull();
      const row = await account(gw);
      expect(row.refreshToken).not.toBeNull();
      if (mode === 'explicit') expect(idp.discoveries()).toBe(0);
    });

    it('links the provider account to a signed-in user', async () => {
      const idp = await startOidcProvider({ redirectUri: CALLBACK });
      const gw = await createTestGateway({ env: envFor(idp, mode) });
      const session = browser(gw.fetch, ORIGIN);
      const signedUp = await session.browse('/api/auth/sign-up/email', {
        body: { email: 'home@example.test', password: 'correct horse battery', name: 'Home' },
      });
      expect(signedUp.status).toBe(200);
      const { landed } = await signIn(gw, { link: true, session });
      expect(landed?.searchParams.get('error')).toBeNull();
      const users = await gw.services.database.db.selectFrom('user').select('email').execute();
      expect(users).toEqual([{ email: 'home@example.test' }]);
      expect((await account(gw)).userId).toBeDefined();
    });

    for (const [name, forgery] of Object.entries(FORGERIES)) {
      it(`refuses an ID token with ${name}, on the gateway's sign-in page`, async () => {
        const idp = await startOidcProvider({ redirectUri: CALLBACK });
        const tokenUrl = await forgingTokenEndpoint(idp, forgery(idp));
        const gw = await createTestGateway({ env: envFor(idp, mode, tokenUrl) });
        const { landed, session } = await signIn(gw);
        expect(landed?.origin).toBe(ORIGIN);
        expect(landed?.pathname).toBe('/sign-in');
        expect(landed?.searchParams.get('error')).toBe('id_token_invalid');
        expect(session.jar.has('better-auth.session_token')).toBe(false);
        const rows = await gw.services.database.db.selectFrom('account').select('id').execute();
        expect(rows).toEqual([]);
        const page = await session.browse(landed?.toString() ?? '/sign-in');
        expect(page.status).toBe(200);
      });
    }

    for (const lifetime of [10, 30, 3600]) {
      it(`refreshes once for 50 concurrent calls with ${lifetime} s tokens, rotating the refresh token`, async () => {
        const idp = await startOidcProvider({ redirectUri: CALLBACK, accessTokenTtl: lifetime });
        const gw = await createTestGateway({ env: envFor(idp, mode) });
        await signIn(gw);
        const before = await account(gw);
        await expireAccessToken(gw);
        const vend = () => gw.services.tokens.vend(before.userId, 'gcp');
        const first = await Promise.all(Array.from({ length: 50 }, vend));
        expect(idp.grants('refresh_token')).toBe(1);
        expect(new Set(first.map((vended) => vended.token)).size).toBe(1);
        // The fresh token is not "about to expire", whatever its lifetime: no further refresh.
        await Promise.all(Array.from({ length: 50 }, vend));
        expect(idp.grants('refresh_token')).toBe(1);
        const after = await account(gw);
        const expiresIn = new Date(after.accessTokenExpiresAt ?? 0).getTime() - Date.now();
        expect(expiresIn).toBeGreaterThan((lifetime - 5) * 1000);
        // Rotated: the old refresh token is spent at the provider.
        expect(after.refreshToken).not.toBe(before.refreshToken);
        const ctx = await (await gw.services.auth.instance()).$context;
        const spent = await fetch(`${idp.issuer}/token`, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            authorization: `Basic ${Buffer.from(`${idp.clientId}:${idp.clientSecret}`).toString('base64')}`,
          },
          body: new URLSearchParams({
            grant_type: 'refresh_token',
            refresh_token: await decryptOAuthToken(before.refreshToken ?? '', ctx),
          }),
        });
        expect(spent.status).toBe(400);
        expect(((await spent.json()) as { error: string }).error).toBe('invalid_grant');
      });
    }

    it('marks the account for reconnect on invalid_grant, stops refreshing, and a reconnect works', async () => {
      const idp = await startOidcProvider({ redirectUri: CALLBACK });
      const gw = await createTestGateway({ env: envFor(idp, mode) });
      const { session } = await signIn(gw);
      const row = await account(gw);
      const ctx = await (await gw.services.auth.instance()).$context;
      const revoked = await fetch(`${idp.issuer}/token/revocation`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${idp.clientId}:${idp.clientSecret}`).toString('base64')}`,
        },
        body: new URLSearchParams({ token: await decryptOAuthToken(row.refreshToken ?? '', ctx) }),
      });
      expect(revoked.status).toBe(200);
      await expireAccessToken(gw);
      const failure = await gw.services.tokens
        .vend(row.userId, 'gcp')
        .catch((error: unknown) => error);
      expect(AuthRequiredError.isInstance(failure)).toBe(true);
      expect((failure as Error).message).toContain('refused');
      expect((failure as Error).message).toContain('gateway connect gcp');
      const marks = await gw.services.database.db
        .selectFrom('oauth_reconnect')
        .selectAll()
        .execute();
      expect(marks.map((mark) => mark.reason)).toEqual(['invalid_grant']);
      const tokenCalls = idp.tokenRequests();
      await gw.services.tokens.vend(row.userId, 'gcp').catch(() => undefined);
      expect(idp.tokenRequests()).toBe(tokenCalls);

      const { landed } = await signIn(gw, { link: true, session });
      expect(landed?.searchParams.get('error')).toBeNull();
      const vended = await gw.services.tokens.vend(row.userId, 'gcp');
      expect(vended.source).toBe('oauth');
    });
  });
}

describe('oidc-provider behind discovery that fails, then recovers', () => {
  it('retries discovery on the next use instead of remembering the failure', async () => {
    const idp = await startOidcProvider({ redirectUri: CALLBACK });
    idp.discoveryDown = true;
    const gw = await createTestGateway({ env: envFor(idp, 'discovery') });
    const session = browser(gw.fetch, ORIGIN);
    const refused = await session.browse('/api/auth/sign-in/social', {
      body: { provider: 'gcp', callbackURL: '/signed-in', disableRedirect: true },
    });
    expect(refused.status).not.toBe(200);
    // An answer (503) is not retried within one lookup (issue 39: one request, not three).
    expect(idp.discoveries()).toBe(1);
    idp.discoveryDown = false;
    const { landed } = await signIn(gw);
    expect(landed?.searchParams.get('error')).toBeNull();
  });

  it('refuses a callback without iss when the provider advertises RFC 9207', async () => {
    const idp = await startOidcProvider({ redirectUri: CALLBACK });
    const metadata = (await (
      await fetch(`${idp.issuer}/.well-known/openid-configuration`)
    ).json()) as Record<string, unknown>;
    expect(metadata.authorization_response_iss_parameter_supported).toBe(true);
    const gw = await createTestGateway({ env: envFor(idp, 'discovery') });
    const { landed } = await signIn(gw, { tamper: (url) => url.searchParams.delete('iss') });
    expect(landed?.pathname).toBe('/sign-in');
    expect(landed?.searchParams.get('error')).toBe('issuer_missing');
    expect(idp.grants('authorization_code')).toBe(0);
  });
});
