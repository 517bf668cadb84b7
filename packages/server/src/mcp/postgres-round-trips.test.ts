import pg from 'pg';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { createPostgresTestDatabase, postgresTestUrl } from '#test/db/test-database.js';
import { connectV1, postEchoCall, startMcpGateway } from '#test/mcp/mcp-test-kit.js';

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

describe.skipIf(url === undefined)('a 2026-07-28 tools/call on PostgreSQL', () => {
  it('costs two statements: the token with its role, and the execution record', async () => {
    const scoped = await createPostgresTestDatabase(url as string);
    await scoped.database.close();
    onTestFinished(scoped.drop);
    const gw = await startMcpGateway({ databaseUrl: scoped.url, registrySyncSeconds: 0 });
    const user = await gw.user({ roleId: 'reader' });
    // Warm: the token's first use records `last_used_at`.
    expect((await postEchoCall(gw.url, user.mcpToken, 'warm')).status).toBe(200);
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
      const answer = await postEchoCall(gw.url, user.mcpToken, `call ${i}`);
      const body = await answer.text();
      expect(body).toContain(`"text":"call ${i}"`);
    }
    expect(statements.count()).toBe(calls * 2);
    expect(
      statements.texts.filter((text) => text.startsWith('insert into "executions"')),
    ).toHaveLength(calls);
  });
});

describe.skipIf(url === undefined)('a 2025 session tools/call on PostgreSQL', () => {
  it('costs two statements: the token with its role and the session row, the execution record', async () => {
    const scoped = await createPostgresTestDatabase(url as string);
    await scoped.database.close();
    onTestFinished(scoped.drop);
    const gw = await startMcpGateway({ databaseUrl: scoped.url, registrySyncSeconds: 0 });
    const user = await gw.user({ roleId: 'reader' });
    const { client } = await connectV1(gw.url, user.mcpToken);
    await client.callTool({ name: 'demo.echo.say', arguments: { text: 'warm' } });
    await vi.waitFor(async () => {
      const row = await gw.gateway.services.database.db
        .selectFrom('mcp_endpoints')
        .select('last_used_at')
        .where('user_id', '=', user.id)
        .executeTakeFirst();
      expect(row?.last_used_at).toBeTruthy();
    });

    const statements = countStatements();
    const calls = 5;
    for (let i = 0; i < calls; i += 1) {
      const result = await client.callTool({ name: 'demo.echo.say', arguments: { text: `c${i}` } });
      expect(JSON.stringify(result.content)).toContain(`c${i}`);
    }
    const reads = (table: string) =>
      statements.texts.filter(
        (text) => text.startsWith(`select`) && text.includes(`from "${table}"`),
      );
    // Per call: the token with its role and the session's row (still open?), then the record. The
    // answer goes out as one JSON body, so its stream's events are never written.
    expect(reads('user')).toHaveLength(0);
    expect(
      statements.texts.filter((text) =>
        text.startsWith('select "tools", "mode" from "mcp_endpoints"'),
      ),
    ).toHaveLength(0);
    // The session's row (still open? its log level) is read in the token's statement.
    const tokenReads = statements.texts.filter((text) =>
      text.includes('"mcp_endpoints"."token_hash"'),
    );
    expect(tokenReads).toHaveLength(calls);
    expect(reads('mcp_sessions')).toEqual(tokenReads);
    expect(
      statements.texts.filter((text) => text.startsWith('insert into "executions"')),
    ).toHaveLength(calls);
    expect(statements.texts.filter((text) => text.includes('"mcp_session_events"'))).toEqual([]);
    // At most one block of event ids taken for the calls' held events.
    expect(statements.count()).toBeLessThanOrEqual(calls * 2 + 1);
  });

  it('refuses a session whose row another instance deleted, seen in the token statement', async () => {
    const scoped = await createPostgresTestDatabase(url as string);
    await scoped.database.close();
    onTestFinished(scoped.drop);
    const gw = await startMcpGateway({ databaseUrl: scoped.url, registrySyncSeconds: 0 });
    const user = await gw.user({ roleId: 'reader' });
    const { client, transport } = await connectV1(gw.url, user.mcpToken);
    await client.callTool({ name: 'demo.echo.say', arguments: { text: 'open' } });
    // As an expiry on another instance would, before its announcement arrives.
    await gw.gateway.services.database.db
      .withTables<{ mcp_sessions: { id: string } }>()
      .deleteFrom('mcp_sessions')
      .where('id', '=', transport.sessionId as string)
      .execute();
    const answer = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${user.mcpToken}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': transport.sessionId as string,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: { name: 'demo.echo.say', arguments: { text: 'gone' } },
      }),
    });
    expect(answer.status).toBe(404);
  });

  it("serves a session's call with the role as the database holds it now", async () => {
    const scoped = await createPostgresTestDatabase(url as string);
    await scoped.database.close();
    onTestFinished(scoped.drop);
    const gw = await startMcpGateway({ databaseUrl: scoped.url, registrySyncSeconds: 0 });
    const user = await gw.user({ roleId: 'reader' });
    const { client } = await connectV1(gw.url, user.mcpToken);
    const before = await client.callTool({ name: 'demo.echo.say', arguments: { text: 'a' } });
    expect(before.isError).not.toBe(true);
    // As another instance would: this one's caches are not told.
    await gw.gateway.services.database.db
      .updateTable('roles')
      .set({ patterns: JSON.stringify(['demo.nothing.*']) })
      .where('id', '=', 'reader')
      .execute();
    await expect(
      client.callTool({ name: 'demo.echo.say', arguments: { text: 'b' } }),
    ).rejects.toThrow(/not found/);
  });
});
