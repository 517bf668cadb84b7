import { describe, expect, it } from 'vitest';
import { browser, clientEnv, gatewayTargets } from '#test/auth/oauth-test-kit.js';
import { createTestGateway } from '#test/support/test-gateway.js';

const ORIGIN = 'http://127.0.0.1:8787';

async function signUp(
  gw: Awaited<ReturnType<typeof createTestGateway>>,
  email: string,
  password = 'correct horse battery',
) {
  const session = browser(gw.fetch, ORIGIN);
  const res = await session.browse('/api/auth/sign-up/email', {
    body: { email, password, name: email.split('@')[0] },
  });
  return { res, session };
}

describe('email and password sign-in', () => {
  it('signs up, keeps a cookie session, and the session authenticates /api routes', async () => {
    const gw = await createTestGateway();
    const { res, session } = await signUp(gw, 'ada@example.test');
    expect(res.status).toBe(200);
    expect(session.jar.has('better-auth.session_token')).toBe(true);

    const tokens = await session.browse('/api/cli/tokens');
    expect(tokens.status).toBe(200);
    expect(await tokens.json()).toEqual({ tokens: [] });

    const anonymous = await gw.request('GET', '/api/cli/tokens');
    expect(anonymous.status).toBe(401);
  });

  it('signs in again with the password, and refuses a wrong one in the gateway error shape', async () => {
    const gw = await createTestGateway();
    await signUp(gw, 'ada@example.test');
    const session = browser(gw.fetch, ORIGIN);
    const ok = await session.browse('/api/auth/sign-in/email', {
      body: { email: 'ada@example.test', password: 'correct horse battery' },
    });
    expect(ok.status).toBe(200);
    expect(session.jar.has('better-auth.session_token')).toBe(true);

    const wrong = await browser(gw.fetch, ORIGIN).browse('/api/auth/sign-in/email', {
      body: { email: 'ada@example.test', password: 'not the password' },
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({
      error: {
        code: 'unauthorized',
        message: expect.any(String),
        details: { reason: 'INVALID_EMAIL_OR_PASSWORD' },
      },
    });
  });

  it('answers a taken email with 409 conflict', async () => {
    const gw = await createTestGateway();
    await signUp(gw, 'ada@example.test');
    const { res } = await signUp(gw, 'ada@example.test');
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ error: { code: 'conflict' } });
  });
});

for (const target of gatewayTargets()) {
  describe.skipIf(target.skip)(`first user is admin on ${target.name}`, () => {
    it('makes the first user to sign up an admin, and nobody after', async () => {
      const gw = await target.create();
      const first = await signUp(gw, 'first@example.test');
      const second = await signUp(gw, 'second@example.test');
      expect(first.res.status).toBe(200);
      expect(second.res.status).toBe(200);

      const roles = await gw.services.database.db
        .selectFrom('user_roles')
        .innerJoin('user', 'user.id', 'user_roles.user_id')
        .select(['user.email', 'user_roles.role_id'])
        .execute();
      expect(roles).toEqual([{ email: 'first@example.test', role_id: 'admin' }]);

      // The admin role shows in what the caller resolver makes of the session.
      const adminOnly = await first.session.browse('/api/service-accounts');
      expect(adminOnly.status).toBe(200);
      const refused = await second.session.browse('/api/service-accounts');
      expect(refused.status).toBe(403);
    });

    it('does not make a later sign-up admin when the first user was made otherwise', async () => {
      const gw = await target.create();
      await gw.createUser();
      await signUp(gw, 'later@example.test');
      const admins = await gw.services.database.db
        .selectFrom('user_roles')
        .select('user_id')
        .where('role_id', '=', 'admin')
        .execute();
      expect(admins).toEqual([]);
    });
  });

  describe.skipIf(target.skip)(`rate limits on ${target.name}`, () => {
    it('limits sign-in attempts per address, in the database, answering 429 in the error shape', async () => {
      const gw = await target.create();
      await signUp(gw, 'ada@example.test');
      const attempt = () =>
        browser(gw.fetch, ORIGIN).browse('/api/auth/sign-in/email', {
          body: { email: 'ada@example.test', password: 'wrong password!' },
        });
      const limit = gw.services.auth.rateLimits.signIn.max;
      // At once: the limit is a rate (a token bucket), so requests spread over more than a
      // tenth of its window would each find one more allowed.
      const answers = await Promise.all(Array.from({ length: limit + 1 }, attempt));
      expect(answers.filter((answer) => answer.status === 401)).toHaveLength(limit);
      const limited = answers.find((answer) => answer.status === 429);
      if (limited === undefined) throw new Error('no attempt was limited');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await limited.json()).toEqual({
        error: { code: 'rate_limited', message: expect.any(String) },
      });
      const counters = await gw.services.database.db
        .selectFrom('rateLimit')
        .select(['key', 'count'])
        .execute();
      expect(counters).toContainEqual({
        key: expect.stringContaining('/sign-in/email'),
        count: limit,
      });
    });

    it('limits sign-up too', async () => {
      const gw = await target.create();
      const limit = gw.services.auth.rateLimits.signUp.max;
      const answers = await Promise.all(
        Array.from({ length: limit + 1 }, (_, i) => signUp(gw, `user${i}@example.test`)),
      );
      expect(answers.filter(({ res }) => res.status === 200)).toHaveLength(limit);
      const limited = answers.find(({ res }) => res.status === 429);
      expect(await limited?.res.json()).toMatchObject({ error: { code: 'rate_limited' } });
    });
  });
}

describe('over HTTP', () => {
  it('serves sign-in on an ephemeral port, with the address it listens on as base URL', async () => {
    const gw = await createTestGateway({
      baseUrl: undefined,
      host: '127.0.0.1',
      port: 0,
      env: clientEnv('gcp'),
    });
    const { url, port } = await gw.start();
    expect(url).toBe(`http://127.0.0.1:${port}`);

    const res = await fetch(`${url}/api/auth/sign-up/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: url },
      body: JSON.stringify({
        email: 'ada@example.test',
        password: 'correct horse battery',
        name: 'Ada',
      }),
    });
    expect(res.status).toBe(200);
    expect(
      res.headers.getSetCookie().some((cookie) => cookie.startsWith('better-auth.session_token=')),
    ).toBe(true);
    expect(gw.services.auth.providers[0]?.callbackUrl).toBe(`${url}/api/auth/oauth2/callback/gcp`);
    // Rate limits key on the socket's address, not on anything the client sent.
    const counters = await gw.services.database.db.selectFrom('rateLimit').select('key').execute();
    expect(counters.map((row) => row.key)).toEqual(['127.0.0.1|/sign-up/email']);
  });

  it('ignores a client-sent X-Forwarded-For unless the peer is a trusted proxy', async () => {
    const gw = await createTestGateway({ baseUrl: undefined, host: '127.0.0.1', port: 0 });
    const { url } = await gw.start();
    const send = (forwardedFor: string) =>
      fetch(`${url}/api/auth/sign-in/email`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-forwarded-for': forwardedFor,
          'x-gateway-client-ip': forwardedFor,
        },
        body: JSON.stringify({ email: 'nobody@example.test', password: 'whatever-password' }),
      });
    await send('203.0.113.7');
    await send('198.51.100.9');
    const counters = await gw.services.database.db
      .selectFrom('rateLimit')
      .select(['key', 'count'])
      .execute();
    expect(counters).toEqual([{ key: '127.0.0.1|/sign-in/email', count: 2 }]);

    const proxied = await createTestGateway({
      baseUrl: undefined,
      host: '127.0.0.1',
      port: 0,
      env: { GATEWAY_TRUSTED_PROXIES: '127.0.0.1' },
    });
    const started = await proxied.start();
    await fetch(`${started.url}/api/auth/sign-in/email`, {
      method: 'POST',
      // A proxy that writes the client's port too (issue 30): the address is still read.
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.7:4711' },
      body: JSON.stringify({ email: 'nobody@example.test', password: 'whatever-password' }),
    });
    const behindProxy = await proxied.services.database.db
      .selectFrom('rateLimit')
      .select('key')
      .execute();
    expect(behindProxy).toEqual([{ key: '203.0.113.7|/sign-in/email' }]);
  });
});

describe('the failed-credential limit behind a proxy', () => {
  /** A gateway on ::1 that trusts ::1 as its proxy, and a wrong credential sent through it. */
  async function behindProxy() {
    // A stopped clock: 31 wrong credentials taking over 2 s under load would refill the bucket.
    const stopped = Date.now();
    const gw = await createTestGateway(
      {
        baseUrl: undefined,
        host: '::1',
        port: 0,
        env: { GATEWAY_TRUSTED_PROXIES: '::1' },
      },
      { rateLimitClock: () => stopped },
    );
    const { url, port } = await gw.start();
    // An IPv6 listen address makes a base URL with brackets (it used to fail as "Invalid URL").
    expect(url).toBe(`http://[::1]:${port}`);
    const wrong = async (forwardedFor: string) => {
      const res = await fetch(`${url}/api/me`, {
        headers: { authorization: 'Bearer gw_cli_wrong', 'x-forwarded-for': forwardedFor },
      });
      await res.body?.cancel();
      return res.status;
    };
    const counters = () =>
      gw.services.database.db.selectFrom('rateLimit').select(['key', 'count']).execute();
    return { gw, wrong, counters };
  }

  // Issue 30: `ip:port` from a trusted proxy was charged to the proxy itself.
  it('reads ip:port and bracketed IPv6 hops, so one client locked out does not lock out another', async () => {
    const { wrong, counters } = await behindProxy();
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) statuses.push(await wrong('203.0.113.7:51234'));
    expect(statuses.slice(0, 30).every((status) => status === 401)).toBe(true);
    expect(statuses[30]).toBe(429);
    // Another client behind the same proxy, in each form a proxy may write it.
    expect(await wrong('198.51.100.9:4711')).toBe(401);
    expect(await wrong('[2001:db8::17]:4711')).toBe(401);
    expect(await wrong('[2001:db8:0:1::17]')).toBe(401);
    // A hop the client wrote itself, left of the proxy's, changes nothing.
    expect(await wrong('203.0.113.7, 198.51.100.10:80')).toBe(401);
    const rows = await counters();
    expect(new Map(rows.map((row) => [row.key, row.count]))).toEqual(
      new Map([
        ['203.0.113.7|bad-credential', 30],
        ['198.51.100.9|bad-credential', 1],
        ['2001:0db8:0000:0000:0000:0000:0000:0000|bad-credential', 1],
        ['2001:0db8:0000:0001:0000:0000:0000:0000|bad-credential', 1],
        ['198.51.100.10|bad-credential', 1],
      ]),
    );
  });

  it('refuses a chain it cannot read, with a warning, and charges no one', async () => {
    const { gw, wrong, counters } = await behindProxy();
    for (const chain of ['not-an-address', '203.0.113.7:port', '[203.0.113.7]:80', 'unknown']) {
      expect(await wrong(chain), chain).toBe(400);
    }
    expect(await counters()).toEqual([]);
    const warnings = gw
      .logs()
      .split('\n')
      .filter((line) => line.includes('unreadable X-Forwarded-For'));
    expect(warnings).toHaveLength(4);
    expect(JSON.parse(warnings[0] ?? '{}')).toMatchObject({
      level: 'warn',
      peer: '::1',
      forwardedFor: 'not-an-address',
    });
    // Every hop is a trusted proxy: the farthest is the client, not the nearest.
    expect(await wrong('::1, ::1')).toBe(401);
    expect(await counters()).toEqual([
      { key: '0000:0000:0000:0000:0000:0000:0000:0000|bad-credential', count: 1 },
    ]);
  });
});

describe('provider registration', () => {
  it('registers no provider without client settings, and starts without error', async () => {
    const gw = await createTestGateway({ env: {} });
    expect(gw.services.auth.providers).toEqual([]);
    const res = await browser(gw.fetch, ORIGIN).browse('/api/auth/sign-in/social', {
      body: { provider: 'github' },
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: 'not_found' } });
  });

  it('needs both the client id and the client secret', async () => {
    const gw = await createTestGateway({
      env: { GITHUB_CLIENT_ID: 'only-an-id', GCP_CLIENT_SECRET: 'only-a-secret-0123456789' },
    });
    expect(gw.services.auth.providers).toEqual([]);
    const res = await browser(gw.fetch, ORIGIN).browse('/api/auth/sign-in/social', {
      body: { provider: 'github' },
    });
    expect(res.status).toBe(404);
  });

  it('registers all eight with their callback URLs when configured', async () => {
    const ids = ['github', 'google', 'microsoft', 'discord', 'gcp', 'atlassian', 'slack', 'linear'];
    const env = Object.assign({}, ...ids.map(clientEnv));
    const gw = await createTestGateway({ env, authBaseUrl: 'https://auth.example.test' });
    expect(gw.services.auth.providers.map((p) => [p.id, p.kind, p.callbackUrl])).toEqual([
      ['github', 'social', 'https://auth.example.test/api/auth/callback/github'],
      ['google', 'social', 'https://auth.example.test/api/auth/callback/google'],
      ['microsoft', 'social', 'https://auth.example.test/api/auth/callback/microsoft'],
      ['discord', 'social', 'https://auth.example.test/api/auth/callback/discord'],
      ['gcp', 'generic', 'https://auth.example.test/api/auth/oauth2/callback/gcp'],
      ['atlassian', 'generic', 'https://auth.example.test/api/auth/oauth2/callback/atlassian'],
      ['slack', 'generic', 'https://auth.example.test/api/auth/oauth2/callback/slack'],
      ['linear', 'generic', 'https://auth.example.test/api/auth/oauth2/callback/linear'],
    ]);

    const expected: Record<string, string> = {
      github: 'https://github.com/login/oauth/authorize',
      google: 'https://accounts.google.com/o/oauth2/v2/auth',
      discord: 'https://discord.com/api/oauth2/authorize',
      gcp: 'https://accounts.google.com/o/oauth2/v2/auth',
      atlassian: 'https://auth.atlassian.com/authorize',
      slack: 'https://slack.com/openid/connect/authorize',
      linear: 'https://linear.app/oauth/authorize',
    };
    for (const [id, authorize] of Object.entries(expected)) {
      const res = await browser(gw.fetch, 'https://auth.example.test').browse(
        '/api/auth/sign-in/social',
        {
          body: { provider: id, disableRedirect: true },
        },
      );
      expect(res.status, id).toBe(200);
      const url = new URL(((await res.json()) as { url: string }).url);
      expect(`${url.origin}${url.pathname}`, id).toBe(authorize);
      expect(url.searchParams.get('client_id'), id).toBe(`${id}-client`);
      const redirect = gw.services.auth.providers.find((p) => p.id === id)?.callbackUrl;
      expect(url.searchParams.get('redirect_uri'), id).toBe(redirect);
    }
  });

  it('scrubs provider client secrets from the logs', async () => {
    const gw = await createTestGateway({ env: clientEnv('github') });
    gw.services.logger.info('leak', { note: 'github-client-secret-0123456789' });
    expect(gw.services.auth.providers).toHaveLength(1);
    expect(gw.logs()).not.toContain('github-client-secret-0123456789');
  });
});
