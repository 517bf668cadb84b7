/**
 * Fuzzes every route of `gateway.routes()` (issue 3, "Tests that must exist"): arbitrary JSON
 * bodies, wrong types, huge and nested values, prototype-pollution keys, malformed JSON, wrong
 * content types, arbitrary queries and path parameters, as the service secret and as a user.
 * Never a 5xx, always the error shape on a non-2xx, never a known secret in an answer.
 */
import { request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type Answer,
  expectErrorShape,
  expectNoLeaks,
  expectNoSecrets,
  readAnswer,
} from '#test/http-suite/answers.js';
import {
  type FuzzSeeds,
  fuzzRequest,
  schemaKeys,
  unknownPath,
} from '#test/http-suite/fuzz-arbitraries.js';
import {
  gatewayRoutes,
  routeKey,
  sharedGateway,
  suiteDatabases,
} from '#test/http-suite/suite-gateway.js';
import { capturedLogLines, knownSecrets } from '#test/support/known-secrets.js';
import type { TestGateway, TestUser } from '#test/support/test-gateway.js';
import { insertPendingApproval } from '../approvals/store.js';
import type { AnyRoute } from '../http/route.js';

const routes = await gatewayRoutes();
/**
 * Runs per route: `FUZZ_RUNS`, else 120 on SQLite and 40 on PostgreSQL (slower per request); a
 * quarter of that in `pnpm test:fast` (`GATEWAY_TEST_FAST`), all of it in `pnpm test` and CI.
 */
const fast = process.env.GATEWAY_TEST_FAST === '1';
const runsOn = (database: string) =>
  Number(process.env.FUZZ_RUNS) || (database === 'SQLite' ? 120 : 40) / (fast ? 4 : 1);
const seed = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];
const ONE_MIB = 1024 * 1024;
/**
 * The text of every GET answer, each once, checked at the end against every secret known by
 * then.
 */
const listAnswers = new Set<string>();
/** How many fuzz worlds this file made, for their unique names. */
let worlds = 0;

afterAll(() => {
  expectNoLeaks(capturedLogLines(), 'the logs of the fuzzed gateways');
  expectNoLeaks(listAnswers, 'GET answers');
  // No JSON body may have reached Object.prototype.
  expect(Object.keys(Object.prototype)).toEqual([]);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

/**
 * New callers and stored things on `gw` for one test: user A, an admin, a connection, an
 * endpoint, a team connection, a service account, a role and a pending approval, whose ids and
 * names the fuzzer mixes in. The tests of a database share one gateway (`sharedGateway()`: a
 * gateway, and a PostgreSQL schema, per route was most of the suite's time), so what a world
 * makes has names of its own; the shared things the fuzzer may also reach (the default and
 * admin roles, the `notes` and `forecast` plugins) are ones every gateway starts with.
 */
async function fuzzWorld(gw: TestGateway) {
  const unique = `${++worlds}-${crypto.randomUUID().slice(0, 8)}`;
  const user = await gw.createUser();
  const admin = await gw.createUser({ admin: true });
  const post = async (path: string, body: unknown, as: TestUser | 'service') => {
    const response = await gw.request('POST', path, { as, body });
    const json: unknown = await response.json();
    if (!response.ok) throw new Error(`setup: POST ${path} -> ${response.status}`);
    return (json as { id: string }).id;
  };
  const secret = `fuzz-secret-${crypto.randomUUID()}`;
  const connection = await post(
    '/api/connections',
    { userId: user.id, toolId: 'github', instanceName: `Work ${unique}`, secret },
    user,
  );
  const endpoint = await post(
    '/api/connections/mcp-endpoints',
    { userId: user.id, name: `laptop ${unique}` },
    user,
  );
  const team = await post(
    '/api/team/connections',
    {
      toolId: 'forecast',
      instanceName: `Team ${unique}`,
      secret: `fuzz-team-${crypto.randomUUID()}`,
    },
    admin,
  );
  const serviceAccount = await post(
    '/api/service-accounts',
    { name: `bot-${unique}`, roleId: 'member' },
    admin,
  );
  const role = `readers-${unique}`;
  await post(
    '/api/policy/roles',
    { id: role, name: `Readers ${unique}`, patterns: ['**'] },
    'service',
  );
  // A plugin mounts under its own namespace only: the shared `notes` source, put back when an
  // earlier test's requests deleted it (409 when it is there).
  await gw.request('POST', '/api/registry/sources', {
    as: 'service',
    body: { type: 'plugin', id: 'notes', namespace: 'notes', pluginId: 'notes' },
  });
  const now = new Date();
  const approval = await insertPendingApproval(gw.services.database.db, {
    id: crypto.randomUUID(),
    executionId: crypto.randomUUID(),
    userId: user.id,
    toolPath: 'notes.notes.create',
    message: 'Create?',
    args: {},
    createdAt: now,
    expiresAt: new Date(now.getTime() + 600_000),
  });
  const seeds: FuzzSeeds = {
    userId: user.id,
    ids: [connection, endpoint, team, serviceAccount, approval.id],
    names: ['member', 'admin', role, 'notes', 'forecast', admin.id],
  };
  return { gw, user, admin, seeds };
}

/** Sends and reads one request; checks what must hold of every answer. */
async function sendAndCheck(
  gw: TestGateway,
  route: AnyRoute | undefined,
  method: string,
  url: string,
  options: Parameters<TestGateway['request']>[2],
): Promise<Answer> {
  const secretsBefore = knownSecrets();
  const response = await gw.request(method, url, options);
  const answer = await readAnswer(`${method} ${url.slice(0, 300)}`, response);
  if (method === 'GET') listAnswers.add(answer.text);
  expect(answer.status, `${answer.request} -> ${answer.text.slice(0, 300)}`).toBeLessThan(500);
  if (!response.ok) expectErrorShape(answer);
  const decrypted = route?.path.endsWith('/decrypt') === true && response.ok;
  if (!decrypted) expectNoSecrets(answer, secretsBefore);
  return answer;
}

for (const database of suiteDatabases('fuzz suite')) {
  const open = database.open;
  describe.skipIf(open === undefined)(`fuzzing every route on ${database.name}`, () => {
    const gateway = sharedGateway(database);
    for (const route of routes) {
      it(routeKey(route), async () => {
        const { gw, user, admin, seeds } = await fuzzWorld(gateway());
        const method = route.method.toUpperCase();
        await fc.assert(
          fc.asyncProperty(fuzzRequest(route, seeds), async (request) => {
            await sendAndCheck(gw, route, method, request.url, {
              as: request.as === 'service' ? 'service' : request.as === 'admin' ? admin : user,
              ...(request.body === undefined ? {} : { body: request.body }),
              headers: { 'content-type': request.contentType },
            });
            expect(Object.keys(Object.prototype)).toEqual([]);
          }),
          { numRuns: runsOn(database.name), ...(seed === undefined ? {} : { seed }) },
        );
      });
    }
  });

  describe.skipIf(open === undefined)(`bodies, paths and methods on ${database.name}`, () => {
    const bodyRoutes = routes.filter((route) => route.body !== undefined);
    const gateway = sharedGateway(database);

    it('answers 413 payload_too_large to a JSON body over 1 MiB, on every route taking one', async () => {
      const { gw, user, seeds } = await fuzzWorld(gateway());
      const big = JSON.stringify({ userId: seeds.userId, secret: 'x'.repeat(ONE_MIB) });
      for (const route of bodyRoutes) {
        const url = route.path.replace(/:\w+/g, seeds.ids[0] as string);
        for (const as of ['service', user] as const) {
          const answer = await sendAndCheck(gw, route, route.method.toUpperCase(), url, {
            as,
            body: big,
          });
          expect(answer.status, answer.request).toBe(413);
          expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'payload_too_large' } });
        }
      }
      // Exactly 1 MiB is still within the limit.
      const atLimit = `{"userId":"${seeds.userId}","name":"${'x'.repeat(ONE_MIB - 50 - seeds.userId.length)}"}`;
      expect(Buffer.byteLength(atLimit)).toBeLessThanOrEqual(ONE_MIB);
      const answer = await sendAndCheck(gw, undefined, 'POST', '/api/connections/mcp-endpoints', {
        as: user,
        body: atLimit,
      });
      expect(answer.status).toBe(400);
    });

    it('answers 413 before reading a body whose Content-Length is over 1 MiB, on a socket', async () => {
      const gw = await open!({ host: '127.0.0.1', port: 0 });
      const { port } = await gw.start();
      const url = `http://127.0.0.1:${port}`;
      for (const route of routes.filter((r) => r.method !== 'get')) {
        const answer = await postOverSocket(
          `${url}${route.path.replace(/:\w+/g, 'x')}`,
          route.method.toUpperCase(),
          `"${'x'.repeat(ONE_MIB)}"`,
        );
        expect(answer.status, answer.request).toBe(413);
        expectErrorShape(answer);
      }
    });

    it('answers malformed JSON and wrong content types with 400 in the error shape', async () => {
      const { gw, user } = await fuzzWorld(gateway());
      for (const route of bodyRoutes) {
        const url = route.path.replace(/:\w+/g, crypto.randomUUID());
        const cases: [string, string, string][] = [
          ['{"userId":', 'application/json', 'bad_request'],
          ["{'a':1}", 'application/json', 'bad_request'],
          ['{"a":1}', 'text/plain', 'bad_request'],
          ['a=1&b=2', 'application/x-www-form-urlencoded', 'bad_request'],
          ['[]', 'application/json', 'validation_failed'],
          ['"text"', 'application/json', 'validation_failed'],
          ['{"__proto__":{"polluted":true}}', 'application/json', 'validation_failed'],
        ];
        for (const [body, contentType, code] of cases) {
          for (const as of ['service', user] as const) {
            const answer = await sendAndCheck(gw, route, route.method.toUpperCase(), url, {
              as,
              body,
              headers: { 'content-type': contentType },
            });
            // Some admin routes refuse a plain user before reading the body.
            if (answer.status === 403) continue;
            expect(answer.status, `${answer.request} ${contentType} ${body}`).toBe(400);
            expect(JSON.parse(answer.text), `${answer.request} ${body}`).toMatchObject({
              error: { code },
            });
          }
        }
      }
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    // PostgreSQL refuses NUL in text ("invalid byte sequence for encoding UTF8: 0x00"); input
    // carrying one must be refused as invalid, not fail in the database as a 500.
    it('answers a NUL character in a parameter, query or body field below 500', async () => {
      const { gw, user } = await fuzzWorld(gateway());
      for (const route of routes) {
        const method = route.method.toUpperCase();
        const query = schemaKeys(route.query).map((key) => `${key}=%00`);
        await sendAndCheck(
          gw,
          route,
          method,
          `${route.path.replace(/:\w+/g, '%00')}${query.length ? `?${query.join('&')}` : ''}`,
          { as: 'service' },
        );
        if (route.method === 'get') continue;
        const body = Object.fromEntries(
          schemaKeys(route.body).map((key) => [
            key,
            key === 'patterns' ? ['a\u0000b'] : 'a\u0000b',
          ]),
        );
        const url = `${route.path.replace(/:\w+/g, 'x')}${route.query ? `?userId=${user.id}` : ''}`;
        await sendAndCheck(gw, route, method, url, { as: 'service', body });
      }
    });

    it('answers unknown paths 404 not_found in the error shape', async () => {
      const { gw, user } = await fuzzWorld(gateway());
      await fc.assert(
        fc.asyncProperty(
          unknownPath(),
          fc.constantFrom(...METHODS),
          fc.constantFrom<'service' | 'user' | 'anonymous'>('service', 'user', 'anonymous'),
          async (path, method, as) => {
            const answer = await sendAndCheck(gw, undefined, method, path, {
              as: as === 'user' ? user : as,
            });
            expect(answer.status, answer.request).toBe(404);
            expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'not_found' } });
          },
        ),
        { numRuns: fast ? 25 : 100, ...(seed === undefined ? {} : { seed }) },
      );
    });

    it('answers a method a path does not serve 405 method_not_allowed, with Allow', async () => {
      const { gw, seeds } = await fuzzWorld(gateway());
      for (const route of routes) {
        const path = route.path.replace(/:\w+/g, seeds.ids[0] as string);
        const allowed = new Set(
          routes
            .filter((other) => patternOf(other.path).test(path))
            .map((r) => r.method.toUpperCase()),
        );
        for (const method of METHODS.filter((m) => !allowed.has(m))) {
          const answer = await sendAndCheck(gw, undefined, method, path, { as: 'service' });
          expect(answer.status, answer.request).toBe(405);
          expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'method_not_allowed' } });
          const allow = await gw.request(method, path, { as: 'service' });
          expect(new Set(allow.headers.get('allow')?.split(/,\s*/))).toEqual(allowed);
          expect(allow.headers.get('allow')?.split(/,\s*/), answer.request).not.toContain(method);
        }
      }
    });

    // One path per resource: the slash form is no route, so it is a 404 for every method; a
    // 405 there would name the very method used in its `Allow`.
    it('answers a route path with a trailing slash 404 not_found, whatever the method', async () => {
      const { gw, seeds } = await fuzzWorld(gateway());
      for (const route of routes) {
        const path = `${route.path.replace(/:\w+/g, seeds.ids[0] as string)}/`;
        for (const method of METHODS) {
          const answer = await sendAndCheck(gw, undefined, method, path, { as: 'service' });
          expect(answer.status, answer.request).toBe(404);
          expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'not_found' } });
        }
      }
      const roles = await gw.request('GET', '/api/policy/roles/', { as: 'service' });
      expect(roles.status).toBe(404);
      expect(roles.headers.get('allow')).toBeNull();
    });
  });
}

/** The regular expression a Hono route path matches: exactly, no trailing slash (strict routing). */
function patternOf(path: string): RegExp {
  const source = path
    .split('/')
    .map((segment) =>
      segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('/');
  return new RegExp(`^${source}$`);
}

/**
 * Sends a body with its Content-Length over a socket and reads the answer, which may come (and
 * the socket close) before the whole body is written: fetch() reports that as a failure.
 */
function postOverSocket(url: string, method: string, body: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, {
      method,
      // A fresh connection each: the server closes one it answered before reading the body.
      agent: false,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          request: `${method} ${url} (no credentials)`,
          status: response.statusCode ?? 0,
          contentType: String(response.headers['content-type'] ?? ''),
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    // The server may stop reading once it has answered.
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    request.end(body);
  });
}
