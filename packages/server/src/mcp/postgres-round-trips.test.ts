import pg from 'pg';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { createPostgresTestDatabase, postgresTestUrl } from '#test/db/test-database.js';
import { startMcpGateway } from '#test/mcp/mcp-test-kit.js';

// Issue 30 item 4: a call on PostgreSQL cost several times one on SQLite. Among the causes, a
// round trip per lookup: the token's owner, then the caller's role, then the record. The role
// now comes with the token.

const url = postgresTestUrl();

/** Counts the statements every pg client of this process sends (the gateway's pool included). */
function countStatements(): { count: () => number; texts: string[] } {
  const texts: string[] = [];
  const query = pg.Client.prototype.query;
  const counting = function (this: pg.Client, ...args: unknown[]) {
    const [first] = args;
    texts.push(typeof first === 'string' ? first : String((first as { text?: string }).text));
    return Reflect.apply(query, this, args);
  };
  pg.Client.prototype.query = counting as typeof query;
  onTestFinished(() => {
    pg.Client.prototype.query = query;
  });
  return { count: () => texts.length, texts };
}

function call(base: string, token: string, text: string): Promise<Response> {
  return fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'demo.echo.say',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'demo.echo.say',
        arguments: { text },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'count', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  });
}

describe.skipIf(url === undefined)('a 2026-07-28 tools/call on PostgreSQL', () => {
  it('costs two statements: the token with its role, and the execution record', async () => {
    const scoped = await createPostgresTestDatabase(url as string, { migrate: false });
    await scoped.database.close();
    onTestFinished(scoped.drop);
    const gw = await startMcpGateway({ databaseUrl: scoped.url, registrySyncSeconds: 0 });
    const user = await gw.user({ roleId: 'reader' });
    // Warm: the token's first use records `last_used_at`.
    expect((await call(gw.url, user.mcpToken, 'warm')).status).toBe(200);
    await vi.waitFor(async () => {
      const row = await gw.gateway.services.database.db
        .selectFrom('mcp_endpoints')
        .select('last_used_at')
        .where('user_id', '=', user.id)
        .executeTakeFirst();
      expect(row?.last_used_at).toBeTruthy();
    });

    const statements = countStatements();
    const calls = 10;
    for (let i = 0; i < calls; i += 1) {
      const answer = await call(gw.url, user.mcpToken, `call ${i}`);
      const body = await answer.text();
      expect(body).toContain(`"text":"call ${i}"`);
    }
    expect(statements.count()).toBe(calls * 2);
    expect(
      statements.texts.filter((text) => text.startsWith('insert into "executions"')),
    ).toHaveLength(calls);
  });
});
