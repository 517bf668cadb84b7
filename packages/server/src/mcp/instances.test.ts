import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createPostgresTestDatabase, postgresTestUrl } from '#test/db/test-database.js';
import {
  connectV1,
  connectV2,
  type McpTestGateway,
  type McpTestUser,
  postEchoCall,
  startMcpGateway,
} from '#test/mcp/mcp-test-kit.js';
import { rememberSecret } from '#test/support/known-secrets.js';
import { issueCliToken } from '../identity/cli-token-store.js';

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

/** A 2026-07-28 `demo.echo.say` call's status, answered by the direct path, over the network. */
async function callStatus(url: string, token: string): Promise<number> {
  const response = await postEchoCall(url, token, 'hi');
  await response.body?.cancel();
  return response.status;
}

/** Deletes `user`'s MCP endpoint through instance `gw`'s API. */
async function deleteEndpoint(gw: McpTestGateway, user: McpTestUser): Promise<void> {
  const listed = await gw.gateway.request(
    'GET',
    `/api/connections/mcp-endpoints?userId=${user.id}`,
    { as: user },
  );
  const { endpoints } = (await listed.json()) as { endpoints: { id: string }[] };
  const deleted = await gw.gateway.request(
    'DELETE',
    `/api/connections/mcp-endpoints/${endpoints[0]?.id}?userId=${user.id}`,
    { as: user },
  );
  expect(deleted.status).toBe(200);
}

/** `GET /api/me`'s status over the network (not handed over in-process). */
function meStatus(url: string, token: string): Promise<number> {
  return fetch(`${url}/api/me`, { headers: { authorization: `Bearer ${token}` } }).then(
    async (response) => {
      await response.body?.cancel();
      return response.status;
    },
  );
}

/**
 * Three rounds of the ways in `token` takes (an MCP token: direct calls and lists; a CLI token:
 * the REST API), so that each instance keeps the token's owner.
 */
async function servedEverywhere(urls: string[], token: string): Promise<void> {
  for (let i = 0; i < 3; i += 1) {
    for (const url of urls) {
      if (token.startsWith('gw_cli_')) {
        expect(await meStatus(url, token)).toBe(200);
      } else {
        expect(await callStatus(url, token)).toBe(200);
        expect(await listStatus(url, token)).toBe(200);
      }
    }
  }
}

/** What the v1 client throws for a request its token no longer allows. */
const REFUSED = /unknown, deleted or revoked/;

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
        await deleteEndpoint(b, alice);

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

      // Issue 37 review: the owners kept per token (LookupCache.getNow, tokens.findNow) on every
      // way in: a direct call, an open 2025 session, the REST API.
      it("stops a deleted endpoint's open 2025 session on the other instance at its next call", async () => {
        const [a, b] = await twoInstances(database);
        const alice = await a.user({ roleId: 'reader' });
        const { client } = await connectV1(a.url, alice.mcpToken);
        await servedEverywhere([a.url, b.url], alice.mcpToken);
        expect((await client.listTools()).tools.length).toBeGreaterThan(0);
        await deleteEndpoint(b, alice);
        await expect(
          client.callTool({ name: 'demo.echo.say', arguments: { text: 'hi' } }),
        ).rejects.toThrow(REFUSED);
        expect(await callStatus(a.url, alice.mcpToken)).toBe(401);
      });

      it('stops a CLI token revoked on the other instance at its next REST request', async () => {
        const [a, b] = await twoInstances(database);
        const alice = await a.user({ admin: true });
        await servedEverywhere([a.url, b.url], alice.token);
        const listed = await b.gateway.request('GET', '/api/cli/tokens', { as: alice });
        const { tokens } = (await listed.json()) as { tokens: { id: string }[] };
        const revoked = await b.gateway.request('DELETE', `/api/cli/tokens/${tokens[0]?.id}`, {
          as: alice,
        });
        expect(revoked.status).toBe(200);
        for (const url of [a.url, b.url]) expect(await meStatus(url, alice.token)).toBe(401);
      });

      it("stops a deleted user's tokens and open 2025 session on the other instance", async () => {
        const [a, b] = await twoInstances(database);
        const alice = await a.user({ roleId: 'reader' });
        const { client } = await connectV1(a.url, alice.mcpToken);
        await servedEverywhere([a.url, b.url], alice.mcpToken);
        expect(await meStatus(a.url, alice.token)).toBe(200);
        await b.gateway.services.database.db
          .deleteFrom('user')
          .where('id', '=', alice.id)
          .execute();
        await expect(client.listTools()).rejects.toThrow(REFUSED);
        expect(await callStatus(a.url, alice.mcpToken)).toBe(401);
        expect(await meStatus(a.url, alice.token)).toBe(401);
      });

      it("applies a role taken away on the other instance to the open 2025 session's next call", async () => {
        const [a, b] = await twoInstances(database);
        const admin = await a.user({ admin: true });
        const bob = await a.user({ admin: true });
        const { client } = await connectV1(a.url, bob.mcpToken);
        await servedEverywhere([a.url, b.url], bob.mcpToken);
        // The tool runs (and fails as it always does) while Bob's role allows it.
        const ran = await client.callTool({ name: 'demo.fail.tool_error', arguments: {} });
        expect(ran.isError).toBe(true);
        expect((await client.listTools()).tools).toHaveLength(7);
        const assigned = await b.gateway.request('PUT', `/api/policy/users/${bob.id}/role`, {
          as: admin,
          body: { roleId: 'reader' },
        });
        expect(assigned.status).toBe(200);
        await expect(
          client.callTool({ name: 'demo.fail.tool_error', arguments: {} }),
        ).rejects.toThrow(/Tool demo.fail.tool_error not found/);
        expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([
          'demo.echo.say',
        ]);
      });

      it('refuses a kept CLI token the moment it expires, with nothing written since', async () => {
        const [a] = await twoInstances(database);
        const alice = await a.user({ admin: true });
        const DAY_MS = 24 * 60 * 60 * 1000;
        // Issued a day ago less 1.5 s, for one day: it expires 1.5 s from now.
        const expiring = await issueCliToken(a.gateway.services.database.db, alice.id, 'laptop', {
          days: 1,
          now: new Date(Date.now() - DAY_MS + 1500),
        });
        rememberSecret(expiring.token);
        await servedEverywhere([a.url], expiring.token);
        // Waits for the clock itself: the expiry is the event.
        const left = Date.parse(expiring.expiresAt) - Date.now();
        if (left >= 0) await new Promise((resolve) => setTimeout(resolve, left + 5));
        expect(await meStatus(a.url, expiring.token)).toBe(401);
      });
    },
  );
}
