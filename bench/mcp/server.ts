/**
 * One side of the MCP benchmark, run as a child process of `index.ts`:
 * - `gateway`: the Gateway as built for release (`packages/server/dist`, which `pnpm bench mcp`
 *   builds first), with token auth, policy, execution records on a SQLite file and its request
 *   log on stdout (which the benchmark sends to /dev/null), serving an echo tool at `/mcp`;
 * - `federated`: the same Gateway without the plugin, serving the `bare` server (its URL the next
 *   argument) as an upstream MCP source: two hops against the bare server's one (issue 16);
 * - `relay`: a forwarder to the `bare` server (its URL the next argument) doing no work of its
 *   own, the ceiling of the federated ratio;
 * - `bare`: the MCP SDK v2 alone, `createMcpHandler` with a new `McpServer` per request, serving
 *   the same echo tool, reading the body the way the Gateway does (`request.text()`, passed as
 *   `parsedBody`); `BENCH_BARE_BODY=sdk` lets the handler read it itself, as the SDK documents.
 * Both use the same HTTP stack (hono on @hono/node-server) and serve 2026-07-28 statelessly.
 * Sends `{ started: { url, token? } }` to the parent; answers `cpu` messages with its CPU time so
 * far (user + system, µs) and `rss` messages with its memory after a GC.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { definePlugin, defineTool } from '@gateway/sdk';
import { createGateway } from '@gateway/server';
import { serve } from '@hono/node-server';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { Pool } from 'undici';
import { z } from 'zod';

const input = z.object({ text: z.string() });
const output = z.object({ text: z.string() });

/**
 * The Gateway serving the echo tool: from the bench plugin, or (with `upstream`, the `federated`
 * side) from that bare MCP server registered as an upstream source (`up.bench.echo.say`).
 */
async function startGateway(
  upstream?: string,
): Promise<{ url: string; token: string; stop: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-bench-'));
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
    configFile: false,
    env: {
      SERVICE_API_SECRET: serviceSecret,
      // The bare upstream listens on 127.0.0.1 beside it.
      ...(upstream === undefined ? {} : { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true' }),
    },
    authSecret: randomBytes(32).toString('hex'),
    databaseUrl: join(dir, 'gateway.db'),
    host: '127.0.0.1',
    port: 0,
  });
  const { url } = await gateway.start();
  // Set up as a user and an operator would: through the HTTP API.
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
  return {
    url,
    token: created.token,
    stop: async () => {
      await gateway.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function startBare(): Promise<{ url: string; stop: () => Promise<void> }> {
  const handler = createMcpHandler(() => {
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
  });
  // By default the body is read the way the Gateway reads it, as one piece, and handed over
  // parsed. BENCH_BARE_BODY=sdk lets the handler read it itself, as the SDK's examples do (a
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
  });
}

/**
 * The `relay` side: the ceiling of any gateway on this stack. It does no work of its own: on the
 * same HTTP stack as the others it forwards each request's body and MCP headers to the bare
 * server (`upstream`) over one kept-alive connection pool (undici's `request`, as the Gateway's
 * upstream transport uses) and answers with the bare server's answer as it came.
 */
async function startRelay(upstream: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const pool = new Pool(upstream, { connections: 64 });
  const target = new URL('/mcp', upstream);
  const forwarded = ['accept', 'content-type', 'mcp-protocol-version', 'mcp-method', 'mcp-name'];
  const fetch = async (request: Request) => {
    const headers: Record<string, string> = {};
    for (const name of forwarded) {
      const value = request.headers.get(name);
      if (value !== null) headers[name] = value;
    }
    const answer = await pool.request({
      method: 'POST',
      path: target.pathname,
      headers,
      body: await request.text(),
    });
    const type = answer.headers['content-type'];
    return new Response(await answer.body.text(), {
      status: answer.statusCode,
      headers: typeof type === 'string' ? { 'content-type': type } : {},
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

const kind = process.argv[2];
const started =
  kind === 'gateway'
    ? await startGateway()
    : kind === 'federated'
      ? await startGateway(process.argv[3])
      : kind === 'relay'
        ? await startRelay(process.argv[3] ?? '')
        : await startBare();
process.send?.({
  started: { url: started.url, token: 'token' in started ? started.token : undefined },
});
process.on('message', (message) => {
  if (message === 'cpu') {
    const { user, system } = process.cpuUsage();
    process.send?.({ cpu: user + system });
  } else if (message === 'rss') {
    globalThis.gc?.();
    const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
    process.send?.({ rss, heapUsed, heapTotal, external });
  } else if (message === 'stop') {
    void started.stop().then(() => process.exit(0));
  }
});
