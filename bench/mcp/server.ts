/**
 * One side of the MCP benchmark, run as a child process of `index.ts`:
 * - `gateway`: the Gateway (token auth, policy, execution records on a SQLite file) serving an
 *   echo tool at `/mcp`;
 * - `bare`: the MCP SDK v2 alone, `createMcpHandler` with a new `McpServer` per request, serving
 *   the same echo tool. The handler reads the request body itself, as the SDK documents; with
 *   `BENCH_BARE_BODY=text` the body is read the way the Gateway reads it (`request.text()`, passed
 *   as `parsedBody`), for a baseline without that difference.
 * Both use the same HTTP stack (hono on @hono/node-server) and serve 2026-07-28 statelessly.
 * Prints `{ url, token? }` on stdout; answers `rss` messages with its RSS and heap after a GC.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { definePlugin, defineTool } from '@gateway/sdk';
import { serve } from '@hono/node-server';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { createGateway } from '../../packages/server/src/index.js';
import { createEndpoint } from '../../packages/server/src/mcp-endpoints/index.js';

const input = z.object({ text: z.string() });
const output = z.object({ text: z.string() });

async function startGateway(): Promise<{ url: string; token: string; stop: () => Promise<void> }> {
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
  const gateway = await createGateway({
    plugins: [plugin],
    configFile: false,
    env: {},
    authSecret: randomBytes(32).toString('hex'),
    databaseUrl: join(dir, 'gateway.db'),
    host: '127.0.0.1',
    port: 0,
    logSink: { write: () => {} },
  });
  gateway.services.plugins.mount({ id: 'bench', namespace: 'bench', pluginId: 'bench' });
  const { db } = gateway.services.database;
  const userId = crypto.randomUUID();
  const now = new Date().toISOString();
  await db
    .insertInto('user')
    .values({
      id: userId,
      name: 'Bench',
      email: 'bench@example.test',
      emailVerified: true,
      image: null,
      createdAt: now,
      updatedAt: now,
    })
    .execute();
  await db
    .insertInto('user_roles')
    .values({ user_id: userId, role_id: 'admin', assigned_at: now })
    .execute();
  const created = await createEndpoint(db, { userId, name: 'bench' });
  if (!created.ok) throw new Error(created.problem);
  const { url } = await gateway.start();
  return {
    url,
    token: created.endpoint.token,
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
      { description: 'Echoes the text.', inputSchema: input, outputSchema: output },
      async ({ text }) => ({
        content: [{ type: 'text', text: JSON.stringify({ text }) }],
        structuredContent: { text },
      }),
    );
    return server;
  });
  // The SDK's own way by default: the handler reads the body itself (a clone and a web stream).
  // BENCH_BARE_BODY=text reads it the way the Gateway does instead, as one piece.
  const readsText = process.env.BENCH_BARE_BODY === 'text';
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

const kind = process.argv[2];
const started = kind === 'gateway' ? await startGateway() : await startBare();
process.stdout.write(
  `${JSON.stringify({ url: started.url, token: 'token' in started ? started.token : undefined })}\n`,
);
process.on('message', (message) => {
  if (message === 'rss') {
    globalThis.gc?.();
    const { rss, heapUsed } = process.memoryUsage();
    process.send?.({ rss, heapUsed });
  } else if (message === 'stop') {
    void started.stop().then(() => process.exit(0));
  }
});
