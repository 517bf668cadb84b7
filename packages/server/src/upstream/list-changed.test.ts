/**
 * Issue 16: an upstream built with the MCP SDK that adds a tool tells its sessions
 * (`notifications/tools/list_changed`); the gateway fetches the list again at once, without
 * waiting for its schedule, and serves the new tool.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { connectV2, startMcpGateway } from '#test/mcp/mcp-test-kit.js';
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
