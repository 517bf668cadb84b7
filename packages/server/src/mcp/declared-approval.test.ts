/**
 * Issue 34: `approval: (input) => message` on a tool is asked before its handler runs, on both
 * protocol paths, and a denial stops the call before anything changes.
 */
import { definePlugin, defineTool } from '@gateway/sdk';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  connectV1,
  connectV2,
  recordsOf,
  startMcpGateway,
  waitForApproval,
} from '#test/mcp/mcp-test-kit.js';

function trashPlugin(deleted: string[]) {
  return definePlugin({
    id: 'trash',
    name: 'Trash',
    description: 'Deletes things.',
    tools: [
      defineTool({
        path: 'trash.items.delete',
        name: 'Delete Item',
        description: 'Deletes an item.',
        inputSchema: z.object({ id: z.string().describe('The item') }),
        destructive: true,
        approval: ({ id }) => `Delete item ${id}?`,
        handler: (_ctx, { id }) => {
          deleted.push(id);
          return { deleted: id };
        },
      }),
    ],
  });
}

async function start() {
  const deleted: string[] = [];
  const gw = await startMcpGateway({ plugins: [trashPlugin(deleted)] });
  return { gw, deleted, alice: await gw.user({ admin: true }) };
}

const CALL = { name: 'trash.items.delete', arguments: { id: 'i1' } };

describe('declarative approval', () => {
  it('asks a 2025 client with the message and arguments, then runs the handler once', async () => {
    const { gw, deleted, alice } = await start();
    const { client } = await connectV1(gw.url, alice.mcpToken, { elicitation: true });
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { approve: true } };
    });
    const result = await client.callTool(CALL);
    expect(result.isError).toBeFalsy();
    expect(asked).toEqual(['Delete item i1?\n\nTool: trash.items.delete\nArguments: {"id":"i1"}']);
    expect(deleted).toEqual(['i1']);
  });

  it('stops the call on a denial (2026-07-28 client), the handler never run', async () => {
    const { gw, deleted, alice } = await start();
    const client = await connectV2(gw.url, alice.mcpToken, { elicitation: true });
    client.setRequestHandler('elicitation/create', async () => ({ action: 'decline' }));
    const result = await client.callTool(CALL);
    expect(result.isError).toBe(true);
    expect(deleted).toEqual([]);
  });

  it("keeps the record's waiting state: the call's running state, queued after its source started, never overwrites it (issue 37)", async () => {
    const { gw, deleted, alice } = await start();
    // A 2025 client without elicitation: the call waits for a decision made through the API,
    // asked in the source's synchronous start, before the pipeline queues the running state.
    const { client } = await connectV1(gw.url, alice.mcpToken);
    const call = client.callTool(CALL);
    const pending = await waitForApproval(gw, alice);
    expect(await recordsOf(gw, 'trash.items.delete')).toMatchObject([
      { outcome: null, approval: 'pending' },
    ]);
    const decided = await gw.gateway.request('POST', `/api/approvals/${pending.id}`, {
      as: alice,
      body: { decision: 'approve' },
    });
    expect(decided.status).toBe(200);
    expect((await call).isError).toBeFalsy();
    expect(deleted).toEqual(['i1']);
    expect(await recordsOf(gw, 'trash.items.delete')).toMatchObject([
      { outcome: 'ok', approval: 'approved' },
    ]);
  });
});
