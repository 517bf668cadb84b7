/**
 * Starts a gateway for the MCP conformance run: a fresh SQLite file in a temp dir, the conformance
 * example plugin mounted under `conformance` and served under the suite's tool names, and an admin
 * user with an MCP endpoint. Calls running longer than 250 ms release their SSE stream, so
 * `test_reconnection` exercises resumption (`server-sse-polling`). Prints one JSON line `{ "url", "token" }`, then serves until SIGTERM.
 *
 * Run from the repository root: `pnpm exec tsx --tsconfig tsconfig.base.json scripts/mcp-conformance/serve.ts`
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  conformanceToolName,
  createConformancePlugin,
  RECONNECTION_TOOL_MS,
} from '../../examples/conformance/src/index.js';
import { createGateway } from '../../packages/server/src/index.js';
import { createEndpoint } from '../../packages/server/src/mcp-endpoints/index.js';

const dir = mkdtempSync(join(tmpdir(), 'gateway-conformance-'));
const gateway = await createGateway({
  plugins: [createConformancePlugin()],
  configFile: false,
  env: {},
  authSecret: randomBytes(32).toString('hex'),
  databaseUrl: join(dir, 'gateway.db'),
  host: '127.0.0.1',
  port: Number(process.env.PORT ?? 0),
  logSink: { write: (line) => process.stderr.write(line) },
  mcp: { toolName: conformanceToolName, releaseStreamAfterMs: RECONNECTION_TOOL_MS / 3 },
});
gateway.services.plugins.mount({
  id: 'conformance',
  namespace: 'conformance',
  pluginId: 'conformance',
});

const { db } = gateway.services.database;
const userId = crypto.randomUUID();
const now = new Date().toISOString();
await db
  .insertInto('user')
  .values({
    id: userId,
    name: 'Conformance',
    email: 'conformance@example.test',
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
const created = await createEndpoint(db, { userId, name: 'conformance' });
if (!created.ok) throw new Error(`could not create the MCP endpoint: ${created.problem}`);

const { url } = await gateway.start();
process.stdout.write(`${JSON.stringify({ url, token: created.endpoint.token })}\n`);

const stop = async () => {
  await gateway.stop();
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
