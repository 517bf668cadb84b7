/**
 * Issue 14 item 5: a call's answer is sent only once its execution record is stored. (The
 * SIGKILL test is executions/crash-recovery.test.ts.)
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { connectV2, startMcpGateway } from '#test/mcp/mcp-test-kit.js';

describe('the execution record before the answer', () => {
  it('is stored when the client has the answer, and without it the result is withheld', async () => {
    const mcp = await startMcpGateway();
    const alice = await mcp.user({ roleId: 'reader' });
    const client = await connectV2(mcp.url, alice.mcpToken);
    const { db } = mcp.gateway.services.database;

    const result = await client.callTool({ name: 'demo.echo.say', arguments: { text: 'hi' } });
    expect(result.isError).toBeFalsy();
    // Read at once, with no flush: the record is in the database already.
    const rows = await db.selectFrom('executions').select(['tool_path', 'outcome']).execute();
    expect(rows).toEqual([{ tool_path: 'demo.echo.say', outcome: 'ok' }]);

    // The database refuses records from now on: the tool runs, its result is not sent.
    await sql`create trigger refuse before insert on executions begin select raise(abort, 'refused'); end`.execute(
      db,
    );
    const withheld = await client.callTool({
      name: 'demo.echo.say',
      arguments: { text: 'must not be answered' },
    });
    expect(withheld.isError).toBe(true);
    const text = JSON.stringify(withheld);
    expect(text).toContain('could not record this call of demo.echo.say');
    expect(text).not.toContain('must not be answered');
  });
});
