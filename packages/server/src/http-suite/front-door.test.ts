/**
 * The front door (issue 13), black-box over real HTTP: every mounted route behind the Host
 * allow-list, the Origin check and the body limit; the attacks of the issue reproduced and
 * refused; failed credentials limited; one answer to "is this user an admin" everywhere.
 */
import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { expectErrorShape, readAnswer } from '#test/http-suite/answers.js';
import { createTestGateway, type TestGateway } from '#test/support/test-gateway.js';
import type { Gateway } from '../gateway.js';

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** A request with any headers (fetch will not forge `Host`), over a real socket. */
function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: options.method ?? 'GET', headers: options.headers },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Sends headers announcing `declared` bytes, a few bytes of body, and waits for the answer. */
function announceHuge(url: string, declared: number, headers: Record<string, string> = {}) {
  return new Promise<RawAnswer>((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'content-length': String(declared),
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text });
          req.destroy();
        });
      },
    );
    // The socket is cut when the answer ends; that error is expected.
    req.on('error', (error) => {
      if (!req.destroyed) reject(error);
    });
    req.write('email=a');
  });
}

async function started(
  options: Parameters<typeof createTestGateway>[0] = {},
  internals: Parameters<typeof createTestGateway>[1] = {},
) {
  const gw = await createTestGateway(
    {
      baseUrl: undefined,
      host: '127.0.0.1',
      port: 0,
      ...options,
    },
    internals,
  );
  const { url, port } = await gw.start();
  return { gw, url, port };
}

/** Every route mounted on the app (pages, API, MCP, better-auth), with its parameters filled. */
function mountedRoutes(gateway: Gateway): { method: string; path: string }[] {
  const seen = new Set<string>();
  const routes: { method: string; path: string }[] = [];
  for (const route of gateway.app.routes) {
    if (route.path === '/*' || route.path === '*') continue;
    const path = route.path
      .replace(/:id\b/g, '00000000-0000-4000-8000-000000000000')
      .replace(/:[A-Za-z]+/g, 'x')
      .replace(/\*$/, 'x');
    const methods = route.method === 'ALL' ? ['GET', 'POST', 'DELETE'] : [route.method];
    for (const method of methods) {
      const key = `${method} ${path}`;
      if (seen.has(key)) continue;
      seen.add(key);
      routes.push({ method, path });
    }
  }
  return routes;
}

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The OAuth endpoints clients post to, which answer every refusal in RFC 6749's shape. */
const OAUTH_ENDPOINT = /^\/oauth\/(?:token|register|revoke)$/;

async function expectRefusal(answer: RawAnswer, status: number, what: string) {
  expect(answer.status, what).toBe(status);
  expect(answer.headers['x-content-type-options'], what).toBe('nosniff');
  expectErrorShape(
    await readAnswer(
      what,
      new Response(answer.text, {
        status: answer.status,
        headers: { 'content-type': String(answer.headers['content-type']) },
      }),
    ),
  );
}

/** Signs up through better-auth from the gateway's own origin; the session cookie to send. */
async function signUp(url: string, email: string): Promise<string> {
  const res = await fetch(`${url}/api/auth/sign-up/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: url },
    body: JSON.stringify({ email, password: 'correct horse battery', name: email.split('@')[0] }),
  });
  expect(res.status).toBe(200);
  return res.headers
    .getSetCookie()
    .map((value) => value.split(';')[0])
    .join('; ');
}

async function userCount(gw: TestGateway): Promise<number> {
  const rows = await gw.services.database.db.selectFrom('user').select('id').execute();
  return rows.length;
}

describe('the front door: Host', () => {
  it('answers 421 on every mounted route when Host names another host (DNS rebinding)', async () => {
    const { gw, url, port } = await started();
    const routes = mountedRoutes(gw);
    expect(routes.length).toBeGreaterThan(40);
    for (const route of routes) {
      if (route.path === '/healthz' || route.path === '/readyz') continue;
      const answer = await raw(`${url}${route.path}`, {
        method: route.method,
        headers: {
          host: `attacker.example:${port}`,
          origin: `http://attacker.example:${port}`,
          ...(STATE_CHANGING.has(route.method)
            ? { 'content-type': 'application/json', 'content-length': '2' }
            : {}),
        },
        ...(STATE_CHANGING.has(route.method) ? { body: '{}' } : {}),
      });
      if (route.method === 'HEAD') {
        // A HEAD answer has no body to check the shape of.
        expect(answer.status, `HEAD ${route.path}`).toBe(421);
        continue;
      }
      await expectRefusal(answer, 421, `${route.method} ${route.path}`);
    }
  });

  it('refuses the sign-up and endpoint attacks of the issue: no account, no token', async () => {
    const { gw, url, port } = await started();
    const attacker = {
      host: `attacker.example:${port}`,
      origin: `http://attacker.example:${port}`,
    };
    const signUp = await raw(`${url}/sign-up`, {
      method: 'POST',
      headers: { ...attacker, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=mallory%40example.test&password=correct+horse+battery&name=M',
    });
    await expectRefusal(signUp, 421, 'POST /sign-up');
    expect(signUp.headers['set-cookie']).toBeUndefined();
    expect(await userCount(gw)).toBe(0);

    const endpoint = await raw(`${url}/endpoints`, {
      method: 'POST',
      headers: { ...attacker, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'name=stolen',
    });
    await expectRefusal(endpoint, 421, 'POST /endpoints');
    const endpoints = await gw.services.database.db
      .selectFrom('mcp_endpoints')
      .select('id')
      .execute();
    expect(endpoints).toEqual([]);
  });

  it('answers GET /healthz and /readyz to any Host, for probes that address an instance by its IP', async () => {
    const { url, port } = await started();
    for (const path of ['/healthz', '/readyz']) {
      const answer = await raw(`${url}${path}`, { headers: { host: `10.1.2.3:${port}` } });
      expect(answer.status).toBe(200);
      const post = await raw(`${url}${path}`, {
        method: 'POST',
        headers: { host: `10.1.2.3:${port}` },
      });
      expect(post.status).toBe(421);
    }
  });

  it("checks every request's Host, however many requests before it passed", async () => {
    const { url, port } = await started();
    const mcp = (host: string) =>
      raw(`${url}/mcp`, {
        method: 'POST',
        headers: { host, 'content-type': 'application/json', 'content-length': '2' },
        body: '{}',
      });
    // Past the guard, a call without a token is the endpoint's 401.
    for (let i = 0; i < 3; i += 1) expect((await mcp(`localhost:${port}`)).status).toBe(401);
    await expectRefusal(await mcp(`attacker.example:${port}`), 421, 'another host');
    expect((await mcp(`LocalHost:${port}`)).status).toBe(401);
    expect((await mcp(`localhost:${port}`)).status).toBe(401);
    await expectRefusal(await mcp('attacker.example'), 421, 'another host, no port');
    // A host let through only as a health check's is not remembered as one that passed.
    expect((await raw(`${url}/healthz`, { headers: { host: `10.1.2.3:${port}` } })).status).toBe(
      200,
    );
    await expectRefusal(await mcp(`10.1.2.3:${port}`), 421, "the probe's host");
  });

  it('accepts the loopback names of a loopback gateway, and names an operator allows', async () => {
    const { url, port } = await started({ allowedHosts: ['gateway.internal'] });
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `[::1]:${port}`,
      'gateway.internal',
    ]) {
      expect((await raw(`${url}/healthz`, { headers: { host } })).status, host).toBe(200);
    }
  });

  it('refuses a malformed GATEWAY_ALLOWED_HOSTS or GATEWAY_ALLOWED_ORIGINS at start', async () => {
    await expect(
      createTestGateway({ env: { GATEWAY_ALLOWED_HOSTS: 'https://gw.example.com' } }),
    ).rejects.toThrow(/GATEWAY_ALLOWED_HOSTS must list host names/);
    await expect(
      createTestGateway({ env: { GATEWAY_ALLOWED_ORIGINS: 'https://gw.example.com/app' } }),
    ).rejects.toThrow(/GATEWAY_ALLOWED_ORIGINS must list origins/);
    await expect(createTestGateway({ env: { GATEWAY_MAX_BODY_BYTES: '1MB' } })).rejects.toThrow(
      /GATEWAY_MAX_BODY_BYTES must be a positive number of bytes/,
    );
  });
});

describe('the front door: Origin', () => {
  it('answers 403 to every state-changing route from another origin, Origin: null or another port', async () => {
    const { gw, url, port } = await started();
    const otherPort = port === 3000 ? 3001 : 3000;
    for (const route of mountedRoutes(gw).filter((r) => STATE_CHANGING.has(r.method))) {
      if (/^\/api\/auth\/(?:oauth2\/)?callback\//.test(route.path)) continue;
      // The token, registration and revocation endpoints of the MCP authorization server take no
      // cookie (a client's credentials are in the body): browser-based clients call them from
      // their own origin (mcp-oauth/attacks.test.ts checks they answer OAuth errors there).
      if (/^\/oauth\/(?:token|register|revoke)$/.test(route.path)) continue;
      for (const origin of ['http://evil.example', 'null', `http://127.0.0.1:${otherPort}`]) {
        const answer = await raw(`${url}${route.path}`, {
          method: route.method,
          headers: { origin, 'content-type': 'application/json', 'content-length': '2' },
          body: '{}',
        });
        await expectRefusal(answer, 403, `${route.method} ${route.path} from ${origin}`);
      }
    }
  });

  it('refuses a cookie-signed post without Origin unless the browser says same-origin', async () => {
    const { url } = await started();
    const cookie = await signUp(url, 'ada@example.test');
    const form = { 'content-type': 'application/x-www-form-urlencoded', cookie };
    for (const site of [undefined, 'cross-site', 'same-site']) {
      const answer = await raw(`${url}/endpoints`, {
        method: 'POST',
        headers: { ...form, ...(site === undefined ? {} : { 'sec-fetch-site': site }) },
        body: 'name=laptop',
      });
      await expectRefusal(answer, 403, `POST /endpoints with Sec-Fetch-Site ${site}`);
    }
    const same = await raw(`${url}/endpoints`, {
      method: 'POST',
      headers: { ...form, 'sec-fetch-site': 'same-origin' },
      body: 'name=laptop',
    });
    expect(same.status).toBe(201);
    const own = await raw(`${url}/endpoints`, {
      method: 'POST',
      headers: { ...form, origin: url },
      body: 'name=desktop',
    });
    expect(own.status).toBe(201);
  });
});

describe('the front door: size', () => {
  it('answers 413 to a declared body over the limit on every route, without reading it', async () => {
    const { gw, url } = await started();
    for (const route of mountedRoutes(gw).filter((r) => STATE_CHANGING.has(r.method))) {
      const answer = await announceHuge(`${url}${route.path}`, 600 * 1024 * 1024, { origin: url });
      if (OAUTH_ENDPOINT.test(route.path)) {
        // OAuth clients read only RFC 6749's error shape there (issue 32).
        expect(answer.status, `${route.method} ${route.path}`).toBe(413);
        expect(JSON.parse(answer.text), `${route.method} ${route.path}`).toMatchObject({
          error: 'invalid_request',
        });
        continue;
      }
      await expectRefusal(answer, 413, `${route.method} ${route.path}`);
    }
  });

  it('reads a declared length as a number, whatever its digits', async () => {
    const { url } = await started({ maxBodyBytes: 4096 });
    const post = (declared: string, size: number) =>
      raw(`${url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': declared },
        body: 'x'.repeat(size),
      });
    // Past the guard, a call without a token is the endpoint's 401.
    for (const [declared, size] of [
      ['999', 999],
      ['4096', 4096],
      ['0004096', 4096],
      ['00000000000000000000001', 1],
    ] as const) {
      expect((await post(declared, size)).status, declared).toBe(401);
    }
    for (const [declared, size] of [
      ['4097', 4097],
      ['9999', 9999],
      ['0004097', 4097],
      ['10000', 10000],
    ] as const) {
      await expectRefusal(await post(declared, size), 413, declared);
    }
  });

  it('cuts a chunked body off at the limit on the CLI pages and the MCP endpoint', async () => {
    const { url } = await started({ maxBodyBytes: 4096 });
    for (const path of ['/cli/sign-in', '/cli/authorize', '/mcp', '/api/connections']) {
      const answer = await new Promise<RawAnswer>((resolve, reject) => {
        const req = httpRequest(
          `${url}${path}`,
          {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded', origin: url },
          },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => {
              text += chunk;
            });
            res.on('end', () =>
              resolve({ status: res.statusCode ?? 0, headers: res.headers, text }),
            );
          },
        );
        req.on('error', reject);
        // No Content-Length: sent chunked, larger than the limit.
        for (let i = 0; i < 8; i++) req.write('x'.repeat(1024));
        req.end();
      });
      await expectRefusal(answer, 413, `chunked POST ${path}`);
    }
  });
});

describe('failed credentials', () => {
  it('answers 429 with Retry-After past 30 wrong tokens a minute, and never slows a valid one', async () => {
    // A stopped clock: 30 wrong tokens taking over 2 s under load would refill the bucket.
    const stopped = Date.now();
    const { gw, url } = await started({}, { rateLimitClock: () => stopped });
    const alice = await gw.createUser();
    const wrong = [
      { path: '/api/me', token: `gw_cli_${'A'.repeat(40)}` },
      { path: '/api/me', token: 'not-the-service-secret-at-all-0123' },
      { path: '/mcp', token: `gw_mcp_${'B'.repeat(40)}` },
    ];
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      const { path, token } = wrong[i % wrong.length] as (typeof wrong)[number];
      const res = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } });
      statuses.push(res.status);
      await res.body?.cancel();
    }
    expect(statuses.every((status) => status === 401)).toBe(true);

    for (const { path, token } of wrong) {
      const res = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } });
      const answer = await readAnswer(`${path} after 30 failures`, res);
      expect(answer.status).toBe(429);
      expectErrorShape(answer);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // A valid token from the same address is answered as ever.
    const me = await fetch(`${url}/api/me`, { headers: alice.headers });
    expect(me.status).toBe(200);
    // Counted in the database, so every instance sharing it sees the same count.
    const counters = await gw.services.database.db
      .selectFrom('rateLimit')
      .select(['key', 'count'])
      .where('key', 'like', '%bad-credential')
      .execute();
    expect(counters).toEqual([{ key: '127.0.0.1|bad-credential', count: 30 }]);
  });
});

describe('one principal', () => {
  it('with GATEWAY_DEFAULT_ROLE=admin, a user without a role is an admin in the API and the web app alike', async () => {
    const { gw, url } = await started({ env: { GATEWAY_DEFAULT_ROLE: 'admin' } });
    await gw.createUser({ admin: true });
    const bob = await gw.createUser();
    const me = (await (await fetch(`${url}/api/me`, { headers: bob.headers })).json()) as {
      roleId: string;
      isAdmin: boolean;
    };
    expect(me).toMatchObject({ roleId: 'admin', isAdmin: true });
    expect((await fetch(`${url}/api/users`, { headers: bob.headers })).status).toBe(200);

    const cookie = await signUp(url, 'cy@example.test');
    const roles = await gw.services.database.db
      .selectFrom('user_roles')
      .innerJoin('user', 'user.id', 'user_roles.user_id')
      .select('user.email')
      .where('user.email', '=', 'cy@example.test')
      .execute();
    expect(roles).toEqual([]);
    const page = await fetch(`${url}/admin/users`, { headers: { cookie } });
    expect(page.status).toBe(200);
    const apiMe = (await (await fetch(`${url}/api/me`, { headers: { cookie } })).json()) as {
      isAdmin: boolean;
    };
    expect(apiMe.isAdmin).toBe(true);
  });

  it('an admin-only route refuses the service secret: admin means an admin user', async () => {
    const { gw, url } = await started({ serviceApiSecret: 'test-service-secret-0123456789abcdef' });
    await gw.createUser({ admin: true });
    const res = await fetch(`${url}/api/service-accounts`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer test-service-secret-0123456789abcdef',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ name: 'ci', roleId: 'admin' }),
    });
    const answer = await readAnswer('POST /api/service-accounts as the service secret', res);
    expect(answer.status).toBe(403);
    expect(answer.text).toMatch(/admin user/);
  });
});

describe('every answer says nosniff', () => {
  it('on JSON, pages, redirects, assets, 404s and MCP', async () => {
    const { gw, url } = await started();
    const alice = await gw.createUser();
    const answers = await Promise.all([
      fetch(`${url}/healthz`),
      fetch(`${url}/api/me`, { headers: alice.headers }),
      fetch(`${url}/api/nothing-here`),
      fetch(`${url}/sign-in`),
      fetch(`${url}/`, { redirect: 'manual' }),
      fetch(`${url}/mcp`, { method: 'POST' }),
      fetch(`${url}/api/openapi.json`),
    ]);
    for (const res of answers) {
      expect(res.headers.get('x-content-type-options'), res.url).toBe('nosniff');
      await res.body?.cancel();
    }
  });
});
