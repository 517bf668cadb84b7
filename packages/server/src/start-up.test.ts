/**
 * What a start of `gateway-server` loads (issue 17 item 5): on a database already migrated,
 * `/healthz` is answered without the MCP server SDK, and an MCP client with a `gw_mcp_` token
 * lists tools without better-auth or the upstream client (the MCP client SDK, undici) loading, nor
 * the web app's pages, the API reference or the tracing SDK's core (issue 37); the first request that needs a session
 * loads better-auth and is served in full, the first page request loads the web app, and the
 * first `/api` request builds the API routes.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { listeningUrl, startBin } from '#test/support/run-bin.js';

const recorder = fileURLToPath(new URL('../test/support/record-loads.mjs', import.meta.url));
const AUTH_SECRET = 'start-up-test-auth-secret-0123456789abcdef';
const SERVICE_API_SECRET = 'start-up-test-service-secret-0123456789';

/** Modules a start must not load before a request needs them. */
const LAZY = {
  'better-auth': /\/node_modules\/better-auth\//,
  'the MCP client SDK (upstream client)': /\/node_modules\/@modelcontextprotocol\/client\//,
  'the v1 MCP SDK': /\/node_modules\/@modelcontextprotocol\/sdk\//,
  undici: /\/node_modules\/undici\//,
  // The tracing SDK's core (~60 CommonJS files with the API and semantic conventions it
  // requires): only a configured exporter needs it (issue 37).
  '@opentelemetry/core': /\/node_modules\/@opentelemetry\/core\//,
};

const MCP_SERVER = /\/node_modules\/@modelcontextprotocol\/server\//;

/**
 * The schema steps and what runs them (issue 37): loaded only when there is something to apply,
 * so a start on a migrated database neither loads them nor deserializes their code. Their list
 * (`migrations/index.ts`, names and loaders) is what a start checks the database against.
 * (kysely's `migration/` modules load with kysely itself: its introspectors import them.)
 */
const MIGRATING = /\/src\/db\/(migrations\/(?!index\.ts$)[\w-]+|run-migrations)\.ts$/;

/**
 * The only modules of the web app and the API reference a start may load before a page or the
 * reference is asked for (issue 37): the lists of routes mounted lazily, the server's version, and
 * the HTML kit with the standalone page shell the sign-in, connect and consent pages share. Anything else of `web/` (its
 * pages, ~80 KB) or `openapi/` loading at start fails the test.
 */
const PAGES = /\/src\/(web|openapi)\/.*\.ts$/;
const PAGES_AT_START = [
  'openapi/server-version.ts',
  'web/assets/styles.ts',
  'web/html.ts',
  'web/lazy.ts',
  'web/routes.ts',
  'web/security.ts',
  'web/standalone-page.ts',
];

/**
 * The `/api` routes' modules (issue 37): the routes and their request and response schemas are
 * built on the first request to one (`api-routes.ts`), so none of a feature's `routes.ts`,
 * `schemas.ts` or `token-routes.ts` may load before it. The probes, metrics and page route lists
 * mount eagerly.
 */
const API_ROUTE_MODULES = /\/src\/(api-routes|[\w-]+\/(routes|schemas|token-routes))\.ts$/;
const ROUTE_MODULES_AT_START = ['health/routes.ts', 'metrics/routes.ts', 'web/routes.ts'];

function apiRoutesLoaded(urls: readonly string[]): string[] {
  const modules = urls
    .filter((url) => url.includes('/packages/server/src/') && API_ROUTE_MODULES.test(url))
    .map((url) => url.replace(/^.*\/src\//, ''))
    .filter((module) => !ROUTE_MODULES_AT_START.includes(module));
  return [...new Set(modules)].sort();
}

function pagesLoaded(urls: readonly string[]): string[] {
  const pages = urls.filter((url) => PAGES.test(url)).map((url) => url.replace(/^.*\/src\//, ''));
  return [...new Set(pages)].sort();
}

/**
 * Node's own modules that a first answer must not load (issue 37): its internal undici (the
 * `fetch` classes, a quarter of a start's work) and `node:http2`, which came with
 * `@hono/node-server`'s globals and its `instanceof Http2ServerRequest`; `https` with `tls` (~100 M
 * instructions) and `zlib`, which prom-client's index loads for its Pushgateway; and `v8`, which
 * its heap-space metric needs, registered after the first answer with the event loop's monitor;
 * Web Crypto, which the ES module facade of `node:crypto` evaluated when the bin's entry was an ES
 * module (it is required as CommonJS now); and `fs/promises` with the readline and watcher modules
 * it requires, which only the config file's existence check used.
 */
const BUILTINS_NOT_AT_START =
  /internal\/deps\/undici|\bhttp2\b|\b(https|tls|zlib)\b|^(NativeModule|Internal Binding) v8$|internal\/crypto\/webcrypto|internal\/fs\/promises|internal\/readline/;

/**
 * libuv's thread pool (issue 37): its first use starts four threads and waits for each to run, and
 * nothing a first answer does needs it (the config files are looked for synchronously; the
 * database is SQLite's, on the main thread).
 */
const THREAD_POOL = /^Thread libuv-worker$/;

/**
 * better-sqlite3's JavaScript, bundled into the server's scripts (issue 37): a start requires none
 * of its 15 CommonJS files, only its native addon, from where the package installed it.
 */
const BETTER_SQLITE3_FILES = /^Module .*[\\/]better-sqlite3[\\/]lib[\\/]/;
const BETTER_SQLITE3_ADDON = /^Module .*[\\/]better-sqlite3[\\/].*\.node$/;

/**
 * A start of `gateway-server` recording what it loads: with `builtins`, the run's bundle (what
 * ships, whose Node built-ins are required as the published one requires them) recording Node's
 * own modules at its first answer; else its sources, whose module files show what it loads.
 */
async function start(dir: string, loads: string, builtins?: string) {
  const { child, output, exited } = await startBin(
    {
      AUTH_SECRET,
      SERVICE_API_SECRET,
      PORT: '0',
      DATABASE_URL: join(dir, 'gateway.db'),
      ...(builtins === undefined
        ? { GATEWAY_TEST_LOADS_FILE: loads }
        : { GATEWAY_TEST_BUILTINS_FILE: builtins }),
      // No balancer to wait for: SIGTERM stops it without the drain's notice.
      GATEWAY_SHUTDOWN_NOTICE_MS: '0',
    },
    [],
    { nodeArgs: ['--import', recorder], sources: builtins === undefined },
  );
  const url = await listeningUrl(child, output);
  const stop = async () => {
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  };
  return { url, stop };
}

async function loaded(file: string): Promise<string[]> {
  return (await readFile(file, 'utf8')).split('\n').filter(Boolean);
}

function lazyLoaded(urls: readonly string[]): string[] {
  return Object.entries(LAZY)
    .filter(([, pattern]) => urls.some((url) => pattern.test(url)))
    .map(([name]) => name);
}

async function signUp(url: string): Promise<string> {
  const response = await fetch(`${url}/api/auth/sign-up/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: url },
    body: JSON.stringify({
      email: 'ada@example.test',
      password: 'correct horse battery',
      name: 'Ada',
    }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { user: { id: string } }).user.id;
}

describe('gateway-server start-up', () => {
  it('answers /healthz and an MCP client without loading better-auth or the upstream client, and loads better-auth for the first sign-in', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gateway-start-up-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));

    // First start: migrates (better-auth's schema check loads it), makes a user and an endpoint.
    const first = await start(dir, join(dir, 'first.loads'));
    const userId = await signUp(first.url);
    const created = await fetch(`${first.url}/api/connections/mcp-endpoints`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${SERVICE_API_SECRET}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ userId, name: 'start-up test' }),
    });
    expect(created.status).toBe(201);
    const { token } = (await created.json()) as { token: string };
    await first.stop();
    const firstLoads = await loaded(join(dir, 'first.loads'));
    expect(lazyLoaded(firstLoads)).toContain('better-auth');
    // The first start migrated: the recorder sees the steps when they load.
    expect(firstLoads.some((url) => MIGRATING.test(url))).toBe(true);

    // Second start, on the migrated database.
    const loads = join(dir, 'second.loads');
    const second = await start(dir, loads);
    const health = await fetch(`${second.url}/healthz`);
    expect(await health.json()).toEqual({ ok: true, database: 'up' });
    // The MCP server SDK loads with the first MCP request, not before.
    expect((await loaded(loads)).filter((url) => MCP_SERVER.test(url))).toEqual([]);
    const client = new Client({ name: 'start-up-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${second.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    const { tools } = await client.listTools();
    expect(Array.isArray(tools)).toBe(true);
    await client.close();
    const beforeSignIn = await loaded(loads);
    // The recorder saw the server's own modules: an empty list would prove nothing.
    expect(beforeSignIn.some((url) => url.endsWith('/src/gateway.ts'))).toBe(true);
    expect(lazyLoaded(beforeSignIn)).toEqual([]);
    expect(pagesLoaded(beforeSignIn)).toEqual(PAGES_AT_START);
    expect(apiRoutesLoaded(beforeSignIn)).toEqual([]);
    expect(beforeSignIn.filter((url) => MIGRATING.test(url))).toEqual([]);

    // A request that needs a session: better-auth loads, once, and answers in full.
    const signIn = await fetch(`${second.url}/api/auth/sign-in/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: second.url },
      body: JSON.stringify({ email: 'ada@example.test', password: 'correct horse battery' }),
    });
    expect(signIn.status).toBe(200);
    expect(signIn.headers.get('set-cookie')).toContain('better-auth.session_token');
    expect(lazyLoaded(await loaded(loads))).toEqual(['better-auth']);
    // A page loads the web app, and it answers (the route was mounted before its module loaded).
    const page = await fetch(`${second.url}/sign-in`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<form');
    expect(pagesLoaded(await loaded(loads))).toContain('web/pages/sign-in.ts');
    // An /api route builds them all, and answers (it was registered before they loaded).
    const endpoints = await fetch(`${second.url}/api/connections/mcp-endpoints?userId=${userId}`, {
      headers: { authorization: `Bearer ${SERVICE_API_SECRET}` },
    });
    expect(endpoints.status).toBe(200);
    expect(apiRoutesLoaded(await loaded(loads))).toEqual(
      expect.arrayContaining(['api-routes.ts', 'mcp-endpoints/routes.ts', 'me/routes.ts']),
    );
    await second.stop();
    // Two real starts and stops of the server with module tracing: ~25 s on a loaded 2-core machine.
  }, 90_000);

  it("answers its first /healthz through the app without loading Node's undici, http2, tls, zlib, v8, Web Crypto or fs/promises, better-sqlite3's CommonJS files, nor starting libuv's thread pool", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gateway-start-up-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    // A first start migrates the database (better-auth's schema check); the second is measured.
    const first = await start(dir, '', join(dir, 'first.builtins'));
    await first.stop();
    const builtins = join(dir, 'second.builtins');
    const second = await start(dir, '', builtins);
    const health = await fetch(`${second.url}/healthz`);
    expect(health.status).toBe(200);
    // Through the app: the request log's id and the guard's header are on it.
    expect(health.headers.get('x-request-id')).toMatch(/^[\w-]{16,}$/);
    expect(health.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await health.json()).toEqual({ ok: true, database: 'up' });
    // Written when the server's answer has finished, which the client may see first.
    const atFirstAnswer = await vi.waitFor(() => loaded(builtins), {
      timeout: 10_000,
      interval: 20,
    });
    // The recorder saw Node's list: an empty one would prove nothing.
    expect(atFirstAnswer).toContain('NativeModule http');
    expect(atFirstAnswer.filter((name) => BUILTINS_NOT_AT_START.test(name))).toEqual([]);
    if (process.platform === 'linux') {
      // The recorder saw the threads: Node's own are always there.
      expect(atFirstAnswer).toContain('Thread V8Worker');
      expect(atFirstAnswer.filter((name) => THREAD_POOL.test(name))).toEqual([]);
    }
    // The database was opened through the bundled JavaScript, with the installed addon.
    expect(atFirstAnswer.filter((name) => BETTER_SQLITE3_ADDON.test(name))).toHaveLength(1);
    expect(atFirstAnswer.filter((name) => BETTER_SQLITE3_FILES.test(name))).toEqual([]);
    await second.stop();
  }, 60_000);
});
