import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createPostgresTestDatabase, postgresTestUrl } from '#test/db/test-database.js';
import { connectV2, type McpTestGateway, startMcpGateway } from '#test/mcp/mcp-test-kit.js';

const pgUrl = postgresTestUrl();

/**
 * Two instances on one database. Each instance keeps the tokens and roles it read while the
 * database is unchanged (db/lookup-cache.ts); a change made through the other instance must
 * apply to the very next request all the same.
 */
async function twoInstances(
  database: 'sqlite' | 'postgres',
): Promise<[McpTestGateway, McpTestGateway]> {
  let databaseUrl: string;
  if (database === 'sqlite') {
    const dir = await mkdtemp(join(tmpdir(), 'gw-instances-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    databaseUrl = join(dir, 'gateway.db');
  } else {
    const scoped = await createPostgresTestDatabase(pgUrl as string);
    onTestFinished(scoped.drop);
    databaseUrl = scoped.url;
  }
  const a = await startMcpGateway({ databaseUrl });
  const b = await startMcpGateway({ databaseUrl });
  return [a, b];
}

async function toolNames(url: string, token: string): Promise<string[]> {
  const client = await connectV2(url, token);
  return (await client.listTools()).tools.map((tool) => tool.name).sort();
}

function listStatus(url: string, token: string): Promise<number> {
  return fetch(`${url}/mcp/${token}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/list',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  }).then((response) => response.status);
}

for (const database of ['sqlite', 'postgres'] as const) {
  describe.skipIf(database === 'postgres' && !pgUrl)(
    `MCP on two instances sharing ${database === 'sqlite' ? 'a SQLite file' : 'PostgreSQL'}`,
    () => {
      it('stops a deleted endpoint token on the other instance at its next request', async () => {
        const [a, b] = await twoInstances(database);
        const alice = await a.user();
        // Served (and its owner kept) on both instances first.
        for (let i = 0; i < 3; i += 1) {
          expect(await listStatus(a.url, alice.mcpToken)).toBe(200);
          expect(await listStatus(b.url, alice.mcpToken)).toBe(200);
        }
        const listed = await b.gateway.request(
          'GET',
          `/api/connections/mcp-endpoints?userId=${alice.id}`,
          { as: alice },
        );
        const { endpoints } = (await listed.json()) as { endpoints: { id: string }[] };
        const deleted = await b.gateway.request(
          'DELETE',
          `/api/connections/mcp-endpoints/${endpoints[0]?.id}?userId=${alice.id}`,
          { as: alice },
        );
        expect(deleted.status).toBe(200);

        expect(await listStatus(a.url, alice.mcpToken)).toBe(401);
        expect(await listStatus(b.url, alice.mcpToken)).toBe(401);
      });

      it('applies a role assignment and a role edit made on the other instance to the next tools/list', async () => {
        const [a, b] = await twoInstances(database);
        const admin = await a.user({ admin: true });
        const bob = await a.user({ roleId: 'reader' });
        expect(await toolNames(a.url, bob.mcpToken)).toEqual(['demo.echo.say']);
        expect(await toolNames(a.url, bob.mcpToken)).toEqual(['demo.echo.say']);

        const assigned = await b.gateway.request('PUT', `/api/policy/users/${bob.id}/role`, {
          as: admin,
          body: { roleId: 'admin' },
        });
        expect(assigned.status).toBe(200);
        expect(await toolNames(a.url, bob.mcpToken)).toHaveLength(7);

        const edited = await b.gateway.request('PUT', '/api/policy/roles/admin', {
          as: admin,
          body: { id: 'admin', name: 'Admin', patterns: ['demo.files.*'] },
        });
        expect(edited.status).toBe(200);
        const files = await toolNames(a.url, bob.mcpToken);
        expect(files.length).toBeGreaterThan(0);
        expect(files.every((name) => name.startsWith('demo.files.'))).toBe(true);
      });

      it('stops a deleted service account key on the other instance at its next request', async () => {
        const [a, b] = await twoInstances(database);
        const admin = await a.user({ admin: true });
        const account = await a.serviceAccount(admin);
        expect(await listStatus(a.url, account.key)).toBe(200);
        expect(await listStatus(a.url, account.key)).toBe(200);

        const deleted = await b.gateway.request('DELETE', `/api/service-accounts/${account.id}`, {
          as: admin,
        });
        expect(deleted.status).toBe(200);
        expect(await listStatus(a.url, account.key)).toBe(401);
      });
    },
  );
}
