/**
 * Starts a gateway for the MCP conformance run: a fresh SQLite file in a temp dir, the conformance
 * example plugin mounted under `conformance` and served under the suite's tool names, and an admin
 * user with an MCP endpoint. Calls running longer than 250 ms release their SSE stream, so
 * `test_reconnection` exercises resumption (`server-sse-polling`). Prints one JSON line
 * `{ "url", "port", "token" }`, then serves until SIGTERM. `PORT` (default 0: any free port) is
 * the port it listens on; `url` is `CONFORMANCE_BASE_URL` when that is set.
 *
 * Run from the repository root: `pnpm exec tsx --tsconfig tsconfig.base.json scripts/mcp-conformance/serve.ts`
 *
 * Several instances on PostgreSQL (`mcp-conformance.mjs --balanced`): with
 * `CONFORMANCE_POSTGRES=<url>` the instance makes a fresh schema there, seeds the user and prints
 * `{ "url", "port", "token", "databaseUrl" }` (and drops the schema when it stops); with
 * `CONFORMANCE_JOIN=<databaseUrl>` it serves that database as it is and prints
 * `{ "url", "port" }`.
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
import { openGateway } from '../../packages/server/src/gateway.js';
import { createEndpoint } from '../../packages/server/src/mcp-endpoints/index.js';
import { createPostgresTestDatabase } from '../../packages/server/test/db/test-database.js';

const dir = mkdtempSync(join(tmpdir(), 'gateway-conformance-'));
const joined = process.env.CONFORMANCE_JOIN;
const seeded =
  process.env.CONFORMANCE_POSTGRES === undefined
    ? undefined
    : await createPostgresTestDatabase(process.env.CONFORMANCE_POSTGRES);
const gateway = await openGateway({
  plugins: [createConformancePlugin()],
  configFile: false,
  env: {},
  // Instances serving one database share it (CONFORMANCE_AUTH_SECRET), as deployments do.
  authSecret: process.env.CONFORMANCE_AUTH_SECRET ?? randomBytes(32).toString('hex'),
  databaseUrl: joined ?? seeded?.url ?? join(dir, 'gateway.db'),
  host: '127.0.0.1',
  port: Number(process.env.PORT ?? 0),
  // Behind a balancer: its address, which clients' Host and Origin name.
  ...(process.env.CONFORMANCE_BASE_URL ? { baseUrl: process.env.CONFORMANCE_BASE_URL } : {}),
  logSink: { write: (line) => process.stderr.write(line) },
  mcp: { toolName: conformanceToolName, releaseStreamAfterMs: RECONNECTION_TOOL_MS / 3 },
});
gateway.services.plugins.mount({
  id: 'conformance',
  namespace: 'conformance',
  pluginId: 'conformance',
});

async function seed(): Promise<string> {
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
  return created.endpoint.token;
}

const token = joined === undefined ? await seed() : undefined;
const { url, port } = await gateway.start();
process.stdout.write(`${JSON.stringify({ url, port, token, databaseUrl: seeded?.url })}\n`);

const stop = async () => {
  await gateway.stop();
  await seeded?.drop();
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
