/**
 * Issue 14 item 5: a call's answer is sent only once its execution record is stored. (The
 * SIGKILL test is executions/crash-recovery.test.ts.) Issue 37: a call's first state is queued
 * once its source's request to its upstream is written (declared-approval.test.ts: never over a
 * later state).
 */
import { sql } from 'kysely';
import { describe, expect, it, vi } from 'vitest';
import { connectV2, recordsOf, startMcpGateway } from '#test/mcp/mcp-test-kit.js';
import { TEST_SERVICE_SECRET } from '#test/support/test-gateway.js';
import { startModernUpstream } from '#test/upstream/modern-upstream.js';
import { registerSource } from '#test/upstream/register-source.js';

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

/** How long a step may take on a loaded machine. */
const LOADED = 15_000;

/** A gateway serving a 2026-07-28 upstream as source `mod`, and a client of it. */
async function federated() {
  const upstream = await startModernUpstream();
  const mcp = await startMcpGateway({ env: { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true' } });
  const registered = await registerSource(mcp.url, {
    type: 'mcp',
    id: 'mod',
    namespace: 'mod',
    url: upstream.url,
  });
  expect(registered.status).toBe(201);
  const alice = await mcp.user({ admin: true });
  return { upstream, mcp, client: await connectV2(mcp.url, alice.mcpToken) };
}

describe('the execution record of a call whose source starts at once (issue 37)', () => {
  it('is stored with a federated call, and without it the upstream result is withheld', async () => {
    const { upstream, mcp, client } = await federated();
    const { db } = mcp.gateway.services.database;

    const echoed = await client.callTool({ name: 'mod.echo', arguments: { text: 'hi' } });
    expect(echoed.isError).toBeFalsy();
    const rows = await db
      .selectFrom('executions')
      .select(['tool_path', 'outcome', 'duration_ms'])
      .execute();
    expect(rows).toEqual([
      { tool_path: 'mod.echo', outcome: 'ok', duration_ms: expect.any(Number) },
    ]);
    // The running state, queued after the request went out, did not come back over the outcome.
    expect(await recordsOf(mcp, 'mod.echo')).toMatchObject([{ outcome: 'ok' }]);

    await sql`create trigger refuse before insert on executions begin select raise(abort, 'refused'); end`.execute(
      db,
    );
    const withheld = await client.callTool({
      name: 'mod.echo',
      arguments: { text: 'must not be answered' },
    });
    expect(withheld.isError).toBe(true);
    const text = JSON.stringify(withheld);
    expect(text).toContain('could not record this call of mod.echo');
    expect(text).not.toContain('must not be answered');
    // The upstream did run it: the answer is withheld, not the call.
    expect(upstream.received.filter((request) => request.method === 'tools/call')).toHaveLength(2);
  });

  it("queues a federated call's running state once its request went out, while the upstream works", async () => {
    const { upstream, mcp, client } = await federated();
    const call = client.callTool({ name: 'mod.slow', arguments: {} });

    // The upstream runs the call (it holds it until stopped): the record shows it running.
    await expect.poll(() => upstream.started, { timeout: LOADED }).toBe(1);
    expect(await recordsOf(mcp, 'mod.slow')).toMatchObject([{ outcome: null }]);

    // Removing the source ends the call, and its record says how.
    const removed = await fetch(`${mcp.url}/api/registry/sources/mod`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${TEST_SERVICE_SECRET}` },
    });
    expect(removed.status).toBe(200);
    expect((await call).isError).toBe(true);
    expect(await recordsOf(mcp, 'mod.slow')).toMatchObject([{ outcome: 'error' }]);
  });

  it('answers a federated call whose running state fails to queue, and stores its outcome', async () => {
    const { upstream, mcp, client } = await federated();
    // The running state is queued from undici's callback for the written request: a throw there
    // would have undici abort the request the upstream already has (the one fault put in here:
    // the real queue cannot be made to throw).
    const write = vi.spyOn(mcp.gateway.services.executions, 'write').mockImplementation(() => {
      throw new Error('the queue refused it');
    });
    for (const text of ['one', 'two']) {
      const echoed = await client.callTool({ name: 'mod.echo', arguments: { text } });
      expect(echoed.isError, text).toBeFalsy();
      expect(JSON.stringify(echoed.content), text).toContain(text);
    }
    expect(write).toHaveBeenCalledTimes(2);
    expect(upstream.received.filter((request) => request.method === 'tools/call')).toHaveLength(2);
    expect(await recordsOf(mcp, 'mod.echo')).toMatchObject([{ outcome: 'ok' }, { outcome: 'ok' }]);
    const logged = mcp.gateway.logs();
    expect(logged).toContain('call work put off until its request was sent failed');
    expect(logged).not.toContain('the queue refused it');
  });
});
