/**
 * One side of the MCP benchmark, run as a child process of `index.ts`:
 * - `gateway`: the Gateway as built for release (`packages/server/dist`, which `pnpm bench mcp`
 *   builds first), with token auth, policy, execution records on a SQLite file and its request
 *   log on stdout (which the benchmark sends to /dev/null), serving an echo tool at `/mcp`;
 * - `federated`: the same Gateway without the plugin, serving the `bare` server (its URL the next
 *   argument) as an upstream MCP source: two hops against the bare server's one (issue 16);
 * - `relay`: a forwarder to the `bare` server (its URL the next argument) doing no work of its
 *   own, the ceiling of the federated ratio;
 * - `checked`: the relay doing besides what any gateway that checks and records its calls must
 *   (checked-relay.ts), the floor under that ceiling; `lean` and `lean-checked`: the relay and the
 *   checked relay on plumbing as light as the Gateway's (lean-relay.ts) (`BENCH_RELAYS`);
 * - `bare`: the MCP SDK v2 alone, `createMcpHandler` with a new `McpServer` per request, serving
 *   the same echo tool, reading the body in one piece (`request.text()`, passed as `parsedBody`;
 *   the Gateway takes a body already whole in Node's buffer from there, README.md `sess37`);
 *   `BENCH_BARE_BODY=sdk` lets the handler read it itself, as the SDK documents.
 * - `bare-session`: the MCP SDK v2 serving 2025-11-25 sessions (one server and transport per
 *   session, answers as JSON; `BENCH_BARE_SESSION=sse` answers with event streams).
 * The `gateway` side also serves `stdio-echo.mjs` as a stdio upstream (`io.bench.echo.say`) and
 * hands over an OAuth access token (`gw_oat_`) of the same user besides the endpoint's token.
 * All use hono over Node's `http`: the bare servers through `@hono/node-server`, the Gateway
 * through its fork of that adapter's core (packages/server/src/http/node-adapter, issue 37).
 * Sends `{ started: { url, token? } }` to the parent; answers `cpu` messages with its CPU time so
 * far (user + system, µs) and `rss` messages with its memory after a GC (and a Gateway's count of
 * open 2025 sessions). `BENCH_SESSION_IDLE_MS` and `BENCH_SESSIONS_PER_USER` set a Gateway's
 * session idle time and per-user session cap (index.ts's abandoned-sessions measure).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getHeapSpaceStatistics } from 'node:v8';
import { definePlugin, defineTool } from '@gateway/sdk';
import { createGateway } from '@gateway/server';
import { serve } from '@hono/node-server';
import {
  createMcpHandler,
  McpServer,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { Pool } from 'undici';
import { z } from 'zod';
import { RelayChecks } from './checked-relay.js';
import { startLeanRelay } from './lean-relay.js';
import { readMappings } from './mappings.js';

const input = z.object({ text: z.string() });
const output = z.object({ text: z.string() });

/**
 * The Gateway serving the echo tool: from the bench plugin, or (with `upstream`, the `federated`
 * side) from that bare MCP server registered as an upstream source (`up.bench.echo.say`).
 */
async function startGateway(upstream?: string): Promise<{
  url: string;
  token: string;
  oauthToken?: string;
  openSessions: () => Promise<number>;
  stop: () => Promise<void>;
}> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-bench-'));
  // The tools that start a side on its own (sides.ts's, stages.ts's) end it with a kill: its
  // database, journal and config (~20 MB after a run) go with it, as `stop` removes them.
  process.once('SIGTERM', () => {
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  });
  // The plugin Gateway also serves the stdio echo upstream (`io.bench.echo.say`, issue 37), so a
  // plugin call and a stdio federated call are measured through the same process.
  const configFile = join(dir, 'gateway.config.mjs');
  const stdioEcho = fileURLToPath(new URL('./stdio-echo.mjs', import.meta.url));
  writeFileSync(
    configFile,
    `export default { upstreams: [{ id: 'io', namespace: 'io', command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(stdioEcho)}] }] };\n`,
  );
  const plugin = definePlugin({
    id: 'bench',
    name: 'Bench',
    description: 'Benchmark tools.',
    tools: [
      defineTool({
        path: 'bench.echo.say',
        name: 'Echo',
        description: 'Echoes the text.',
        inputSchema: input,
        outputSchema: output,
        async handler(_ctx, { text }) {
          return { text };
        },
      }),
    ],
  });
  const serviceSecret = randomBytes(24).toString('hex');
  const gateway = await createGateway({
    plugins: [plugin],
    configFile: upstream === undefined ? configFile : false,
    env: {
      SERVICE_API_SECRET: serviceSecret,
      // The bare upstream listens on 127.0.0.1 beside it.
      ...(upstream === undefined ? {} : { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true' }),
      // instructions.ts: under callgrind on a loaded machine a request's head can wait in the
      // kernel's buffer past the 10 s it may take to arrive (a 408), and a kept-alive connection
      // be closed by its 5 s timer, fired late, as the client's next request arrives (a reset).
      ...(process.env.BENCH_CONNECTION_TIMEOUT_MS === undefined
        ? {}
        : {
            GATEWAY_REQUEST_HEAD_TIMEOUT_MS: process.env.BENCH_CONNECTION_TIMEOUT_MS,
            GATEWAY_KEEP_ALIVE_TIMEOUT_MS: process.env.BENCH_CONNECTION_TIMEOUT_MS,
          }),
    },
    // The abandoned-sessions measure (index.ts) starts a Gateway whose sessions expire sooner and
    // whose user may hold more of them than the default 100.
    mcp: {
      ...(process.env.BENCH_SESSION_IDLE_MS === undefined
        ? {}
        : { sessionIdleMs: Number(process.env.BENCH_SESSION_IDLE_MS) }),
      ...(process.env.BENCH_SESSIONS_PER_USER === undefined
        ? {}
        : { maxSessionsPerUser: Number(process.env.BENCH_SESSIONS_PER_USER) }),
    },
    authSecret: randomBytes(32).toString('hex'),
    databaseUrl: join(dir, 'gateway.db'),
    host: '127.0.0.1',
    port: 0,
  });
  const { url } = await gateway.start();
  // Set up as a user and an operator would: through the HTTP API.
  let cookie = '';
  const api = async (path: string, body: unknown, bearer?: string) => {
    const response = await gateway.fetch(
      new Request(`${url}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          origin: url,
          ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }),
        },
        body: JSON.stringify(body),
      }),
    );
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    const set = response.headers.getSetCookie().map((line) => line.split(';')[0]);
    if (set.length > 0) cookie = set.join('; ');
    return response.json();
  };
  await api(
    '/api/registry/sources',
    upstream === undefined
      ? { type: 'plugin', id: 'bench', namespace: 'bench', pluginId: 'bench' }
      : { type: 'mcp', id: 'up', namespace: 'up', url: `${upstream}/mcp` },
    serviceSecret,
  );
  const signedUp = (await api('/api/auth/sign-up/email', {
    name: 'Bench',
    email: 'bench@example.test',
    password: randomBytes(16).toString('hex'),
  })) as { user: { id: string } };
  const created = (await api(
    '/api/connections/mcp-endpoints',
    { userId: signedUp.user.id, name: 'bench' },
    serviceSecret,
  )) as { token: string };
  const oauthToken =
    upstream === undefined ? await oauthAccessToken(gateway.fetch, url, cookie) : undefined;
  return {
    url,
    token: created.token,
    ...(oauthToken === undefined ? {} : { oauthToken }),
    // The 2025 sessions it holds, as its metrics tell them to an operator.
    openSessions: async () => {
      const response = await gateway.fetch(
        new Request(`${url}/metrics`, { headers: { authorization: `Bearer ${serviceSecret}` } }),
      );
      const line = /^gateway_mcp_sessions_open (\d+)$/m.exec(await response.text());
      return Number(line?.[1] ?? Number.NaN);
    },
    stop: async () => {
      await gateway.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * An OAuth access token (`gw_oat_`) from the Gateway's own MCP authorization server, got the way
 * a client gets one: dynamic registration, the signed-in user's consent, the code exchanged with
 * PKCE. `cookie` is the user's browser session.
 */
async function oauthAccessToken(
  fetchGateway: (request: Request) => Promise<Response>,
  url: string,
  cookie: string,
): Promise<string> {
  const redirectUri = 'http://127.0.0.1:9/callback';
  const send = async (path: string, init: RequestInit = {}) =>
    fetchGateway(new Request(`${url}${path}`, { ...init, redirect: 'manual' }));
  const registered = await send('/oauth/register', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'bench',
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    }),
  });
  const { client_id: clientId } = (await registered.json()) as { client_id: string };
  const verifier = randomBytes(48).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    resource: `${url}/mcp`,
    state: 'bench',
  });
  const page = await send(`/oauth/authorize?${query}`, { headers: { cookie } });
  const html = await page.text();
  if (page.status !== 200) throw new Error(`consent page: ${page.status} ${html.slice(0, 300)}`);
  // The page sets its CSRF cookie, which the form must come back with.
  const cookies = [cookie, ...page.headers.getSetCookie().map((line) => line.split(';')[0])].join(
    '; ',
  );
  const form = new URLSearchParams({ action: 'allow' });
  for (const [, name, value] of html.matchAll(
    /<input type="hidden" name="([^"]+)" value="([^"]*)">/g,
  )) {
    form.set(
      name ?? '',
      (value ?? '')
        .replaceAll('&quot;', '"')
        .replaceAll('&#39;', "'")
        .replaceAll('&lt;', '<')
        .replaceAll('&gt;', '>')
        .replaceAll('&amp;', '&'),
    );
  }
  const consented = await send('/oauth/authorize', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: url, cookie: cookies },
    body: form.toString(),
  });
  const location = consented.headers.get('location');
  const code = location === null ? null : new URL(location).searchParams.get('code');
  if (code === null) throw new Error(`consent: ${consented.status} ${await consented.text()}`);
  const token = await send('/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      client_id: clientId,
      redirect_uri: redirectUri,
      code_verifier: verifier,
      resource: `${url}/mcp`,
    }).toString(),
  });
  const answer = (await token.json()) as { access_token?: string };
  if (answer.access_token === undefined) throw new Error(`token: ${JSON.stringify(answer)}`);
  return answer.access_token;
}

/** The bare server's echo tool, on a new SDK v2 server. */
function echoServer(): McpServer {
  const server = new McpServer({ name: 'bare', version: '1.0.0' });
  server.registerTool(
    'bench.echo.say',
    {
      description: 'Echoes the text.',
      inputSchema: input,
      outputSchema: output,
      // Read-only, as it says: served as an upstream, it does not ask for approval.
      annotations: { readOnlyHint: true },
    },
    async ({ text }) => ({
      content: [{ type: 'text', text: JSON.stringify({ text }) }],
      structuredContent: { text },
    }),
  );
  return server;
}

/**
 * The `bare-session` side: the SDK v2 serving 2025-11-25 sessions the cheapest correct way, one
 * server and transport per session (as the SDK's examples do), the body read in one piece with
 * `request.text()` (see `bare` above), and each answer one JSON body (`enableJsonResponse`: no event stream, no event store, as an
 * echo tool that never asks the client anything may). `BENCH_BARE_SESSION=sse` answers with an
 * event stream, as the Gateway does (its tools may ask the client questions mid-call).
 */
async function startBareSessions(): Promise<{ url: string; stop: () => Promise<void> }> {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const json = process.env.BENCH_BARE_SESSION !== 'sse';
  const fetch = async (request: Request) => {
    const body = request.method === 'POST' ? JSON.parse(await request.text()) : undefined;
    const options = body === undefined ? {} : { parsedBody: body };
    const id = request.headers.get('mcp-session-id');
    const held = id === null ? undefined : sessions.get(id);
    if (held !== undefined) return held.handleRequest(request, options);
    if (id !== null) {
      return Response.json(
        { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null },
        { status: 404 },
      );
    }
    const transport: WebStandardStreamableHTTPServerTransport =
      new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        enableJsonResponse: json,
        onsessioninitialized: (opened) => {
          sessions.set(opened, transport);
        },
        onsessionclosed: (closed) => {
          sessions.delete(closed);
        },
      });
    await echoServer().connect(transport);
    return transport.handleRequest(request, options);
  };
  return new Promise((resolve) => {
    const listening = serve({ fetch, hostname: '127.0.0.1', port: 0 }, (info) =>
      resolve({
        url: `http://127.0.0.1:${info.port}`,
        stop: () => new Promise<void>((done) => listening.close(() => done())),
      }),
    );
    // instructions.ts: counted under callgrind, as the Gateway is (see `BENCH_CONNECTION_TIMEOUT_MS`).
    const keepAlive = Number(process.env.BENCH_BARE_KEEPALIVE_MS);
    if (keepAlive > 0) (listening as { keepAliveTimeout: number }).keepAliveTimeout = keepAlive;
  });
}

async function startBare(): Promise<{ url: string; stop: () => Promise<void> }> {
  const handler = createMcpHandler(echoServer);
  // By default the body is read in one piece and handed over parsed. BENCH_BARE_BODY=sdk lets the handler read it itself, as the SDK's examples do (a
  // clone and a web stream: ~40 µs more a call, which would flatter the Gateway).
  const readsText = process.env.BENCH_BARE_BODY !== 'sdk';
  const fetch = async (request: Request) =>
    readsText
      ? handler.fetch(request, { parsedBody: JSON.parse(await request.text()) })
      : handler.fetch(request);
  return new Promise((resolve) => {
    const listening = serve({ fetch, hostname: '127.0.0.1', port: 0 }, (info) =>
      resolve({
        url: `http://127.0.0.1:${info.port}`,
        stop: () => new Promise<void>((done) => listening.close(() => done())),
      }),
    );
    // instructions.ts: a Gateway under valgrind may leave its pooled connection idle longer than
    // node's 5 s, and the bare server would close it as the Gateway writes its next call.
    const keepAlive = Number(process.env.BENCH_BARE_KEEPALIVE_MS);
    if (keepAlive > 0) (listening as { keepAliveTimeout: number }).keepAliveTimeout = keepAlive;
  });
}

/**
 * The `relay` side: the ceiling of any gateway on this stack. It does no work of its own: on the
 * same HTTP stack as the others it forwards each request's body and MCP headers to the bare
 * server (`upstream`) over one kept-alive connection pool (undici's `request`, as the Gateway's
 * upstream transport uses) and answers with the bare server's answer as it came.
 */
async function startRelay(
  upstream: string,
  checks?: RelayChecks,
): Promise<{ url: string; stop: () => Promise<void> }> {
  const pool = new Pool(upstream, { connections: 64 });
  const target = new URL('/mcp', upstream);
  const forwarded = ['accept', 'content-type', 'mcp-protocol-version', 'mcp-method', 'mcp-name'];
  const fetch = async (request: Request) => {
    const headers: Record<string, string> = {};
    for (const name of forwarded) {
      const value = request.headers.get(name);
      if (value !== null) headers[name] = value;
    }
    const body = await request.text();
    const call = checks?.request(request.headers.get('authorization'), body);
    if (checks !== undefined && call === undefined) return new Response(null, { status: 400 });
    const answer = await pool.request({ method: 'POST', path: target.pathname, headers, body });
    const type = answer.headers['content-type'];
    const text = await answer.body.text();
    if (checks === undefined || call === undefined) {
      return new Response(text, {
        status: answer.statusCode,
        headers: typeof type === 'string' ? { 'content-type': type } : {},
      });
    }
    if (!(await checks.answer(call, text))) return new Response(null, { status: 502 });
    return new Response(text, {
      status: answer.statusCode,
      headers: {
        'content-type': typeof type === 'string' ? type : 'application/json',
        'x-content-type-options': 'nosniff',
        'x-request-id': call.id,
      },
    });
  };
  return new Promise((resolve) => {
    const listening = serve({ fetch, hostname: '127.0.0.1', port: 0 }, (info) =>
      resolve({
        url: `http://127.0.0.1:${info.port}`,
        stop: async () => {
          await new Promise<void>((done) => listening.close(() => done()));
          await pool.close();
        },
      }),
    );
  });
}

/** What a side started: its URL and how to stop it; a Gateway's tokens and session count too. */
interface Started {
  url: string;
  token?: string;
  oauthToken?: string;
  openSessions?: () => Promise<number>;
  stop: () => Promise<void>;
}

/** A memory-reducing, last-resort full GC (`--expose-gc`'s `gc`, V8's options). */
function settle(): void {
  const gc = globalThis.gc as
    | ((options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void)
    | undefined;
  gc?.({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}

const kind = process.argv[2];
/** Starts the side `kind` (`upstream`: the bare server's URL, for the sides in front of it). */
function startKind(kind: string | undefined, upstream: string): Promise<Started> {
  switch (kind) {
    case 'gateway':
      return startGateway();
    case 'federated':
      return startGateway(upstream);
    case 'relay':
      return startRelay(upstream);
    case 'checked':
      return startRelay(upstream, new RelayChecks());
    case 'lean':
      return startLeanRelay(upstream);
    case 'lean-checked':
      return startLeanRelay(upstream, new RelayChecks());
    case 'bare-session':
      return startBareSessions();
    default:
      return startBare();
  }
}

const started = await startKind(kind, process.argv[3] ?? '');
process.send?.({
  started: {
    url: started.url,
    token: started.token,
    oauthToken: started.oauthToken,
  },
});
process.on('message', (message) => {
  if (message === 'cpu') {
    const { user, system } = process.cpuUsage();
    process.send?.({ cpu: user + system });
  } else if (message === 'rss') {
    globalThis.gc?.();
    const found = process.memoryUsage.rss();
    // Then the memory read settled: a memory-reducing GC (the one V8 runs under memory pressure)
    // gives back the pages a GC freed, which V8 otherwise keeps resident in its page pool and
    // its spaces (tens of MB, more or less at any moment), and shrinks the young generation.
    // What is resident after it is what the process holds and cannot give back.
    settle();
    const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
    // Where the RSS is (BENCH_RSS_TRACE): V8's spaces as committed, and anonymous memory outside
    // them (malloc's arenas: native code, buffers, the JIT's own allocations).
    const spaces = Object.fromEntries(
      getHeapSpaceStatistics().map((space) => [space.space_name, space.space_size]),
    );
    const anon = /^RssAnon:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    const rssAnon = Number(anon?.[1] ?? 0) * 1024;
    // Where the resident pages are by kind of mapping (mappings.ts), and how much of V8's
    // committed heap is resident.
    const mappings = readMappings();
    const heapResident = getHeapSpaceStatistics().reduce(
      (sum, space) => sum + space.physical_space_size,
      0,
    );
    const sessions = started.openSessions?.() ?? Promise.resolve(0);
    void sessions.then((openSessions) =>
      process.send?.({
        rss,
        heapUsed,
        heapTotal,
        external,
        openSessions,
        spaces,
        rssAnon,
        found,
        mappings,
        heapResident,
      }),
    );
  } else if (message === 'stop') {
    void started.stop().then(() => process.exit(0));
  }
});
