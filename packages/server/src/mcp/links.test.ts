/**
 * A plugin tool asks the user to open a link (`ctx.elicit({ type: 'url', url })`, MCP URL-mode
 * elicitation) by the best way the client offers: a 2025 session client that takes links gets
 * `elicitation/create` with the link, a 2026-07-28 one gets it in `input_required`, and anyone
 * else finds it in the approvals list. A link a person should not be sent to never reaches one.
 */
import { definePlugin, defineTool } from '@gateway/sdk';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  connectV1,
  connectV2,
  type McpTestGateway,
  type McpTestUser,
  startMcpGateway,
  waitForApproval,
} from '#test/mcp/mcp-test-kit.js';

const PAY_URL = 'https://pay.example.com/orders/1042';

/** `shop.orders.pay` asks the user to open the payment page, then says whether they agreed. */
const shop = definePlugin({
  id: 'shop',
  name: 'Shop',
  description: 'Orders.',
  tools: [
    defineTool({
      path: 'shop.orders.pay',
      name: 'Pay Order',
      description: 'Sends the user to the payment page.',
      inputSchema: z.object({ url: z.string().default(PAY_URL) }),
      outputSchema: z.object({ opened: z.boolean() }),
      async handler(ctx, { url }) {
        const answer = await ctx.elicit({
          toolPath: 'shop.orders.pay',
          message: 'Pay for order 1042',
          type: 'url',
          url,
        });
        return { opened: answer.approved };
      },
    }),
  ],
});

const PAY = { name: 'shop.orders.pay', arguments: {} };

async function start() {
  const gw = await startMcpGateway({ plugins: [shop] });
  return { gw, alice: await gw.user({ admin: true }) };
}

async function recordOf(gw: McpTestGateway, user: McpTestUser) {
  await gw.gateway.services.executions.flush();
  const response = await gw.gateway.request('GET', `/api/executions?userId=${user.id}`, {
    as: user,
  });
  const { executions } = (await response.json()) as {
    executions: { outcome: string | null; approval: string | null; error: string | null }[];
  };
  return executions[0];
}

describe('a plugin tool asking the user to open a link', () => {
  it('sends it to a 2025 session client that takes links, with an elicitation id', async () => {
    const { gw, alice } = await start();
    const { client } = await connectV1(gw.url, alice.mcpToken, { elicitation: 'url' });
    const asked: unknown[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      return { action: 'accept' };
    });
    const result = await client.callTool(PAY);
    expect(asked).toEqual([
      {
        mode: 'url',
        message: 'Pay for order 1042',
        url: PAY_URL,
        elicitationId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      },
    ]);
    expect(result.structuredContent).toEqual({ opened: true });
    expect(await recordOf(gw, alice)).toMatchObject({ outcome: 'ok', approval: 'approved' });
  });

  it('asks a 2026-07-28 client that takes links in input_required, and a decline says no', async () => {
    const { gw, alice } = await start();
    const client = await connectV2(gw.url, alice.mcpToken, { elicitation: 'url' });
    const asked: unknown[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params);
      return { action: 'decline' };
    });
    const result = await client.callTool(PAY);
    expect(asked).toEqual([expect.objectContaining({ mode: 'url', url: PAY_URL })]);
    expect(result.structuredContent).toEqual({ opened: false });
    expect(await recordOf(gw, alice)).toMatchObject({ outcome: 'ok', approval: 'declined' });
  });

  it('lists it among the approvals for a client that takes forms only', async () => {
    const { gw, alice } = await start();
    const client = await connectV2(gw.url, alice.mcpToken, { elicitation: true });
    let asked = 0;
    client.setRequestHandler('elicitation/create', async () => {
      asked += 1;
      return { action: 'accept', content: { approve: true } };
    });
    const call = client.callTool(PAY);
    const pending = await waitForApproval(gw, alice);
    expect(pending).toMatchObject({ toolPath: 'shop.orders.pay', status: 'pending' });
    expect(pending.message).toBe(
      `Pay for order 1042\n\n${PAY_URL}\n\nOpen this address in your browser; approve once you have done what it asks, or deny.`,
    );
    const decided = await gw.gateway.request('POST', `/api/approvals/${pending.id}`, {
      as: alice,
      body: { decision: 'approve' },
    });
    expect(decided.status).toBe(200);
    expect((await call).structuredContent).toEqual({ opened: true });
    // A form-only client is never sent a link it could not show.
    expect(asked).toBe(0);
  });

  it('never shows anyone a link a person should not be sent to', async () => {
    const { gw, alice } = await start();
    const { client } = await connectV1(gw.url, alice.mcpToken, { elicitation: 'url' });
    let asked = 0;
    client.setRequestHandler(ElicitRequestSchema, async () => {
      asked += 1;
      return { action: 'accept' };
    });
    for (const url of [
      'javascript:alert(document.cookie)',
      'http://pay.example.com/orders/1042',
      'https://user:secret@pay.example.com/',
      'data:text/html,<script>alert(1)</script>',
    ]) {
      const result = await client.callTool({ name: 'shop.orders.pay', arguments: { url } });
      expect(result.isError, url).toBe(true);
      expect(JSON.stringify(result.content)).not.toContain(url);
    }
    expect(asked).toBe(0);
    expect(await recordOf(gw, alice)).toMatchObject({
      outcome: 'error',
      error: 'Unexpected error',
    });
    // The operator's log says what the tool got wrong.
    expect(gw.gateway.logs()).toContain('must be an https: address (http: only to localhost)');
  });
});
