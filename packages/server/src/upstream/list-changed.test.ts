/**
 * Issue 16: an upstream built with the MCP SDK that adds a tool tells its sessions
 * (`notifications/tools/list_changed`); the gateway fetches the list again at once, without
 * waiting for its schedule, and serves the new tool.
 */
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { connectV1, connectV2, startMcpGateway } from '#test/mcp/mcp-test-kit.js';
import { startSdkUpstream } from '#test/upstream/sdk-upstream.js';

/**
 * A gateway serving an SDK upstream as source `sdk`, with no schedule (only the notification can
 * bring a new tool), a client of it and the `sdk.` tools that client is served.
 */
async function servedUpstream() {
  const upstream = await startSdkUpstream();
  const gw = await startMcpGateway({
    env: { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true', GATEWAY_UPSTREAM_REFRESH_SECONDS: '0' },
  });
  const registered = await gw.gateway.request('POST', '/api/registry/sources', {
    as: 'service',
    body: { type: 'mcp', approval: 'listed', id: 'sdk', namespace: 'sdk', url: upstream.url },
  });
  expect(registered.status).toBe(201);
  const alice = await gw.user({ admin: true });
  const client = await connectV2(gw.url, alice.mcpToken);
  const sdkTools = async () =>
    (await client.listTools()).tools
      .map((tool) => tool.name)
      .filter((name) => name.startsWith('sdk.'));
  return { upstream, gw, client, sdkTools };
}

describe('notifications/tools/list_changed', () => {
  it('makes the gateway fetch the tool list again and serve the new tool', async () => {
    const { upstream, client, sdkTools } = await servedUpstream();
    expect(await sdkTools()).toEqual(['sdk.first']);

    upstream.addTool('second');
    await expect.poll(sdkTools, { timeout: 5000 }).toEqual(['sdk.first', 'sdk.second']);
    const result = await client.callTool({ name: 'sdk.second', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'second ran' }]);
  });

  it('keeps serving the tools it has when the new list cannot be stored, and stores the next', async () => {
    const { upstream, gw, sdkTools } = await servedUpstream();
    const { db } = gw.gateway.services.database;

    // A real database failure while the refresh stores the list: the table is gone for a moment.
    await sql`alter table upstream_tools rename to upstream_tools_away`.execute(db);
    upstream.addTool('second');
    await expect
      .poll(() => gw.gateway.logs(), { timeout: 5000 })
      .toContain('upstream tool list not stored');
    expect(await sdkTools()).toEqual(['sdk.first']);

    await sql`alter table upstream_tools_away rename to upstream_tools`.execute(db);
    upstream.addTool('third');
    await expect
      .poll(sdkTools, { timeout: 5000 })
      .toEqual(['sdk.first', 'sdk.second', 'sdk.third']);
  });
});

// Issue 31: `tools/list_changed` went to every session, also to users whose role sees none of the
// change. A catalog change now reaches only the 2025 sessions whose served tools it changed.
describe('tools/list_changed after an upstream changed its tools', () => {
  it('reaches only the sessions whose served tools changed', async () => {
    const { upstream, gw } = await servedUpstream();
    const { policy } = gw.gateway.services;
    await policy.createRole({ id: 'all_sdk', name: 'All sdk', patterns: ['sdk.**'] });
    await policy.createRole({ id: 'first_only', name: 'First only', patterns: ['sdk.first'] });
    await policy.createRole({ id: 'third_only', name: 'Third only', patterns: ['sdk.third'] });
    const sessions = await Promise.all(
      ['all_sdk', 'first_only', 'third_only'].map(async (roleId) => {
        const user = await gw.user({ roleId });
        const { client } = await connectV1(gw.url, user.mcpToken);
        const heard = { count: 0 };
        client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
          heard.count += 1;
        });
        const names = async () => (await client.listTools()).tools.map((tool) => tool.name);
        return { roleId, client, heard, names };
      }),
    );
    const [all, firstOnly, thirdOnly] = sessions as [
      (typeof sessions)[number],
      (typeof sessions)[number],
      (typeof sessions)[number],
    ];
    expect(await all.names()).toEqual(['sdk.first']);
    expect(await firstOnly.names()).toEqual(['sdk.first']);
    expect(await thirdOnly.names()).toEqual([]);

    // sdk.second: seen by all_sdk only.
    upstream.addTool('second');
    await expect.poll(() => all.heard.count, { timeout: 5000 }).toBe(1);
    // The gateway checks every session's served tools side by side when the list changes: the
    // other two sessions' checks were over before all_sdk's client heard and listed again.
    expect(await all.names()).toEqual(['sdk.first', 'sdk.second']);
    expect(firstOnly.heard.count).toBe(0);
    expect(thirdOnly.heard.count).toBe(0);

    // sdk.third: seen by all_sdk and third_only, once each.
    upstream.addTool('third');
    await expect.poll(() => thirdOnly.heard.count, { timeout: 5000 }).toBe(1);
    await expect.poll(() => all.heard.count, { timeout: 5000 }).toBe(2);
    expect(await thirdOnly.names()).toEqual(['sdk.third']);
    expect(await all.names()).toEqual(['sdk.first', 'sdk.second', 'sdk.third']);
    expect(firstOnly.heard.count).toBe(0);
    expect(all.heard.count).toBe(2);
    expect(thirdOnly.heard.count).toBe(1);

    // The source removed: those who saw its tools are told, the others were told nothing new.
    const removed = await gw.gateway.request('DELETE', '/api/registry/sources/sdk', {
      as: 'service',
    });
    expect(removed.status).toBe(200);
    await expect.poll(() => firstOnly.heard.count, { timeout: 5000 }).toBe(1);
    await expect.poll(() => thirdOnly.heard.count, { timeout: 5000 }).toBe(2);
    await expect.poll(() => all.heard.count, { timeout: 5000 }).toBe(3);
    expect(await firstOnly.names()).toEqual([]);
  });
});
