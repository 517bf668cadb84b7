import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  browser,
  gatewayTargets,
  MICROSOFT_ENDPOINTS,
  microsoftEnv,
  startMockProvider,
} from '#test/auth/oauth-test-kit.js';
import { createTestGateway, type TestGateway } from '#test/support/test-gateway.js';
import { s256 } from './pkce.js';

const ORIGIN = 'http://127.0.0.1:8787';
const REDIRECT = 'http://127.0.0.1:53682/callback';

/** What `gateway login` prepares: a state, a PKCE pair and the authorize URL. */
function loginRequest(redirectUri = REDIRECT) {
  const state = randomBytes(16).toString('base64url');
  const verifier = randomBytes(48).toString('base64url');
  const query = new URLSearchParams({
    response_type: 'code',
    redirect_uri: redirectUri,
    state,
    code_challenge: s256(verifier),
    code_challenge_method: 'S256',
    client_name: 'gateway CLI on laptop',
  });
  return { state, verifier, url: `/cli/authorize?${query}` };
}

function csrfOf(html: string): string {
  const match = /name="csrf" value="([^"]+)"/.exec(html);
  if (!match?.[1]) throw new Error('no csrf field in the page');
  return match[1];
}

function hiddenOf(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[match[1] ?? ''] = (match[2] ?? '').replaceAll('&amp;', '&').replaceAll('&quot;', '"');
  }
  return fields;
}

/** A signed-in browser (signed up with email and password). */
async function signedIn(gw: TestGateway, email = 'ada@example.test') {
  const session = browser(gw.fetch, ORIGIN);
  const res = await session.browse('/api/auth/sign-up/email', {
    body: { email, password: 'correct horse battery', name: 'Ada' },
  });
  expect(res.status).toBe(200);
  return session;
}

/** Approves a login request in a signed-in browser; the loopback URL the browser is sent to. */
async function approve(session: ReturnType<typeof browser>, url: string): Promise<URL> {
  const page = await session.browse(url);
  expect(page.status).toBe(200);
  const html = await page.text();
  const answer = await session.browse('/cli/authorize', {
    form: { ...hiddenOf(html), action: 'approve' },
  });
  expect(answer.status).toBe(303);
  return new URL(answer.headers.get('location') ?? '');
}

async function exchange(gw: TestGateway, body: Record<string, string>) {
  return gw.request('POST', '/api/cli/token', { body });
}

for (const target of gatewayTargets()) {
  describe.skipIf(target.skip)(`gateway login, server side, on ${target.name}`, () => {
    it('sends a browser that is not signed in to sign in, then back, then approves and exchanges the code', async () => {
      const gw = await target.create();
      const session = browser(gw.fetch, ORIGIN);
      const login = loginRequest();

      const first = await session.browse(login.url);
      expect(first.status).toBe(302);
      const signInUrl = new URL(first.headers.get('location') ?? '', ORIGIN);
      expect(signInUrl.pathname).toBe('/cli/sign-in');
      expect(signInUrl.searchParams.get('next')).toBe(login.url);

      const signInPage = await session.browse(signInUrl.toString());
      expect(signInPage.headers.get('content-type')).toContain('text/html');
      expect(signInPage.headers.get('x-frame-options')).toBe('DENY');
      const signInHtml = await signInPage.text();
      const signedUp = await session.browse('/cli/sign-in', {
        form: {
          ...hiddenOf(signInHtml),
          email: 'ada@example.test',
          password: 'correct horse battery',
          name: 'Ada',
          action: 'sign-up',
        },
      });
      expect(signedUp.status).toBe(303);
      expect(signedUp.headers.get('location')).toBe(login.url);
      expect(session.jar.has('better-auth.session_token')).toBe(true);

      const approvalPage = await session.browse(login.url);
      const html = await approvalPage.text();
      expect(html).toContain('gateway CLI on laptop');
      expect(html).toContain('ada@example.test');
      expect(html).toContain('53682');

      const loopback = await approve(session, login.url);
      expect(`${loopback.origin}${loopback.pathname}`).toBe(REDIRECT);
      expect(loopback.searchParams.get('state')).toBe(login.state);
      const code = loopback.searchParams.get('code') ?? '';
      expect(code.length).toBeGreaterThan(30);
      // The CLI's listener sends the browser on to the gateway's own last page.
      expect(loopback.searchParams.get('complete_uri')).toBe(`${ORIGIN}/cli/authorize/complete`);
      const complete = await (await session.browse('/cli/authorize/complete')).text();
      expect(complete).toContain('<h1>Command line approved</h1>');
      expect(complete).toContain('ada@example.test');

      const res = await exchange(gw, {
        code,
        code_verifier: login.verifier,
        redirect_uri: REDIRECT,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      const issued = (await res.json()) as {
        token: string;
        userId: string;
        id: string;
        expiresAt: string;
      };
      expect(issued.token).toMatch(/^gw_cli_[A-Za-z0-9]{40}$/);
      const user = await gw.services.database.db
        .selectFrom('user')
        .select('id')
        .executeTakeFirstOrThrow();
      expect(issued.userId).toBe(user.id);

      // The token works, is stored hashed, and is listed with its last use.
      const listed = await gw.request('GET', '/api/cli/tokens', { as: { token: issued.token } });
      expect(listed.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 20));
      const list = (await (
        await gw.request('GET', '/api/cli/tokens', { as: { token: issued.token } })
      ).json()) as {
        tokens: { id: string; createdAt: string; lastUsedAt: string | null }[];
      };
      expect(list.tokens).toEqual([
        {
          id: issued.id,
          name: 'gateway CLI on laptop',
          maskedToken: `gw_cli_••••••••${issued.token.slice(-4)}`,
          createdAt: expect.any(String),
          lastUsedAt: expect.any(String),
          expiresAt: issued.expiresAt,
        },
      ]);
      // GATEWAY_CLI_TOKEN_DAYS defaults to 90 (issue 13, item 8).
      const lifetime = Date.parse(issued.expiresAt) - Date.parse(list.tokens[0]?.createdAt ?? '');
      expect(lifetime).toBe(90 * 24 * 60 * 60 * 1000);
      const stored = await gw.services.database.db
        .selectFrom('api_tokens')
        .select('token_hash')
        .where('id', '=', issued.id)
        .executeTakeFirstOrThrow();
      expect(stored.token_hash).not.toContain(issued.token);
      expect(
        JSON.stringify(
          await gw.services.database.db.selectFrom('verification').selectAll().execute(),
        ),
      ).not.toContain(code);
    });

    it('refuses a wrong verifier, and the code is spent', async () => {
      const gw = await target.create();
      const session = await signedIn(gw);
      const login = loginRequest();
      const code = (await approve(session, login.url)).searchParams.get('code') ?? '';

      const wrong = await exchange(gw, {
        code,
        code_verifier: randomBytes(48).toString('base64url'),
        redirect_uri: REDIRECT,
      });
      expect(wrong.status).toBe(400);
      expect(await wrong.json()).toMatchObject({ error: { code: 'bad_request' } });
      const retry = await exchange(gw, {
        code,
        code_verifier: login.verifier,
        redirect_uri: REDIRECT,
      });
      expect(retry.status).toBe(400);
    });

    it('refuses a reused code', async () => {
      const gw = await target.create();
      const session = await signedIn(gw);
      const login = loginRequest();
      const code = (await approve(session, login.url)).searchParams.get('code') ?? '';
      const body = { code, code_verifier: login.verifier, redirect_uri: REDIRECT };

      const [a, b] = await Promise.all([exchange(gw, body), exchange(gw, body)]);
      expect([a.status, b.status].sort()).toEqual([200, 400]);
      expect((await exchange(gw, body)).status).toBe(400);
    });

    it('refuses a code older than 60 seconds', async () => {
      const gw = await target.create();
      const session = await signedIn(gw);
      const login = loginRequest();
      const code = (await approve(session, login.url)).searchParams.get('code') ?? '';
      const row = await gw.services.database.db
        .selectFrom('verification')
        .select(['expiresAt', 'createdAt'])
        .where('identifier', 'like', 'gateway:cli-code:%')
        .executeTakeFirstOrThrow();
      const ttl = new Date(row.expiresAt).getTime() - new Date(row.createdAt).getTime();
      expect(ttl).toBe(60_000);
      // Sixty-one seconds later, as the database sees it.
      await gw.services.database.db
        .updateTable('verification')
        .set({ expiresAt: new Date(Date.now() - 1_000) })
        .where('identifier', 'like', 'gateway:cli-code:%')
        .execute();

      const res = await exchange(gw, {
        code,
        code_verifier: login.verifier,
        redirect_uri: REDIRECT,
      });
      expect(res.status).toBe(400);
    });

    it('refuses a redirect URI other than the one the code was issued for', async () => {
      const gw = await target.create();
      const session = await signedIn(gw);
      const login = loginRequest();
      const code = (await approve(session, login.url)).searchParams.get('code') ?? '';
      const res = await exchange(gw, {
        code,
        code_verifier: login.verifier,
        redirect_uri: 'http://127.0.0.1:9999/callback',
      });
      expect(res.status).toBe(400);
    });
  });
}

describe('the authorize page', () => {
  it('refuses a non-loopback redirect on the page, without redirecting', async () => {
    const gw = await createTestGateway();
    const session = await signedIn(gw);
    for (const redirect of [
      'https://evil.example/callback',
      'http://127.0.0.1:53682/elsewhere',
      'http://evil.example:53682/callback',
    ]) {
      const res = await session.browse(loginRequest(redirect).url);
      expect(res.status, redirect).toBe(400);
      expect(res.headers.get('location'), redirect).toBeNull();
    }
    const exchanged = await exchange(gw, {
      code: 'x'.repeat(43),
      code_verifier: 'y'.repeat(43),
      redirect_uri: 'https://evil.example/callback',
    });
    expect(exchanged.status).toBe(400);
  });

  it('refuses a plain (non-S256) challenge', async () => {
    const gw = await createTestGateway();
    const session = await signedIn(gw);
    const url = loginRequest().url.replace(
      'code_challenge_method=S256',
      'code_challenge_method=plain',
    );
    expect((await session.browse(url)).status).toBe(400);
  });

  it('redirects a denial to the loopback with access_denied', async () => {
    const gw = await createTestGateway();
    const session = await signedIn(gw);
    const login = loginRequest();
    const html = await (await session.browse(login.url)).text();
    const answer = await session.browse('/cli/authorize', {
      form: { ...hiddenOf(html), action: 'deny' },
    });
    const loopback = new URL(answer.headers.get('location') ?? '');
    expect(loopback.searchParams.get('error')).toBe('access_denied');
    expect(loopback.searchParams.get('state')).toBe(login.state);
    expect(loopback.searchParams.get('code')).toBeNull();
  });

  it('refuses an approval without the CSRF token or from another origin', async () => {
    const gw = await createTestGateway();
    const session = await signedIn(gw);
    const login = loginRequest();
    const html = await (await session.browse(login.url)).text();
    const fields = hiddenOf(html);

    const { csrf: _, ...withoutCsrf } = fields;
    const missing = await session.browse('/cli/authorize', {
      form: { ...withoutCsrf, action: 'approve' },
    });
    expect(missing.status).toBe(403);

    const forged = await gw.fetch(
      new Request(`${ORIGIN}/cli/authorize`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          origin: 'https://evil.example',
          cookie: session.jar.header(),
        },
        body: new URLSearchParams({ ...fields, csrf: csrfOf(html), action: 'approve' }).toString(),
      }),
    );
    expect(forged.status).toBe(403);
    expect(forged.headers.get('location')).toBeNull();
  });

  it('signs in with an OAuth provider from the sign-in page and comes back to approve', async () => {
    const idp = await startMockProvider({
      endpoints: MICROSOFT_ENDPOINTS,
      claims: { oid: 'ms-1', email: 'ms@example.test', name: 'MS', tid: 't' },
    });
    const gw = await createTestGateway({ env: microsoftEnv(idp) });
    const session = browser(gw.fetch, ORIGIN);
    const login = loginRequest();
    const signInUrl = (await session.browse(login.url)).headers.get('location') ?? '';
    const html = await (await session.browse(signInUrl)).text();
    expect(html).toContain('Continue with Microsoft');

    const started = await session.browse('/cli/sign-in/social', {
      form: { provider: 'microsoft', next: login.url, csrf: csrfOf(html) },
    });
    expect(started.status).toBe(303);
    const { url: back } = await session.follow(started, (url) => url.pathname === '/cli/authorize');
    expect(back?.pathname).toBe('/cli/authorize');
    const loopback = await approve(session, `${back?.pathname}${back?.search}`);
    expect(loopback.searchParams.get('code')).toBeTruthy();
  });
});

for (const target of gatewayTargets()) {
  describe.skipIf(target.skip)(`CLI tokens on ${target.name}`, () => {
    it('revokes a token: it stops working at once and leaves the list', async () => {
      const gw = await target.create();
      const session = await signedIn(gw);
      const login = loginRequest();
      const code = (await approve(session, login.url)).searchParams.get('code') ?? '';
      const { token, id } = (await (
        await exchange(gw, { code, code_verifier: login.verifier, redirect_uri: REDIRECT })
      ).json()) as {
        token: string;
        id: string;
      };

      const other = await gw.createUser();
      expect((await gw.request('DELETE', `/api/cli/tokens/${id}`, { as: other })).status).toBe(404);
      const revoked = await session.browse(`/api/cli/tokens/${id}`, { method: 'DELETE' });
      expect(revoked.status).toBe(200);
      expect(await revoked.json()).toEqual({ deleted: [id] });
      expect((await gw.request('GET', '/api/cli/tokens', { as: { token } })).status).toBe(401);
      expect(await (await session.browse('/api/cli/tokens')).json()).toEqual({ tokens: [] });
    });

    it('issues tokens that expire after cliTokenDays, shown wherever the token is', async () => {
      const gw = await target.create({ cliTokenDays: 7 });
      const session = await signedIn(gw);
      const login = loginRequest();
      const code = (await approve(session, login.url)).searchParams.get('code') ?? '';
      const before = Date.now();
      const res = await exchange(gw, {
        code,
        code_verifier: login.verifier,
        redirect_uri: REDIRECT,
      });
      expect(res.status).toBe(200);
      const issued = (await res.json()) as { token: string; id: string; expiresAt: string };
      const week = 7 * 24 * 60 * 60 * 1000;
      expect(Date.parse(issued.expiresAt)).toBeGreaterThanOrEqual(before + week);
      expect(Date.parse(issued.expiresAt)).toBeLessThanOrEqual(Date.now() + week);

      const list = await gw.request('GET', '/api/cli/tokens', { as: { token: issued.token } });
      expect(await list.json()).toMatchObject({
        tokens: [{ id: issued.id, expiresAt: issued.expiresAt }],
      });
      const me = await gw.request('GET', '/api/me', { as: { token: issued.token } });
      const text = await me.text();
      expect(JSON.parse(text)).toMatchObject({
        via: 'cli_token',
        token: { id: issued.id, expiresAt: issued.expiresAt },
      });
      expect(text).not.toContain(issued.token.slice('gw_cli_'.length));
    });

    it('rate-limits the token endpoint per address with 429 and Retry-After', async () => {
      const gw = await target.create();
      const body = { code: 'x'.repeat(43), code_verifier: 'y'.repeat(43), redirect_uri: REDIRECT };
      const limit = gw.services.auth.rateLimits.cliToken.max;
      for (let i = 0; i < limit; i += 1) expect((await exchange(gw, body)).status).toBe(400);
      const limited = await exchange(gw, body);
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await limited.json()).toEqual({
        error: { code: 'rate_limited', message: expect.any(String) },
      });
    });
  });
}
