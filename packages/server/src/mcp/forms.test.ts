import { specTypeSchemas, withInputRequired } from '@modelcontextprotocol/client';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createInteractionPlugin, SHIPPING_FIELDS } from '#test/mcp/interaction-plugin.js';
import {
  connectV1,
  connectV2,
  type McpTestGateway,
  type McpTestUser,
  startMcpGateway,
  waitForApproval,
} from '#test/mcp/mcp-test-kit.js';
import { describeForm } from './call/form-summary.js';

const SHIP = { name: 'calls.orders.ship', arguments: {} };
const REQUESTED = { type: 'object', properties: SHIPPING_FIELDS, required: ['speed'] };

async function start() {
  const gw = await startMcpGateway({ plugins: [createInteractionPlugin()] });
  return { gw, alice: await gw.user({ admin: true }) };
}

async function approvalOf(gw: McpTestGateway, user: McpTestUser) {
  await gw.gateway.services.executions.flush();
  const response = await gw.gateway.request('GET', `/api/executions?userId=${user.id}`, {
    as: user,
  });
  const { executions } = (await response.json()) as { executions: { approval: string | null }[] };
  return executions[0]?.approval;
}

describe('forms with explicit fields (ctx.elicit({ type: "form", fields }))', () => {
  it('path 1: asks a 2026-07-28 client for the fields and hands the checked answer over', async () => {
    const { gw, alice } = await start();
    const client = await connectV2(gw.url, alice.mcpToken, { elicitation: true });
    const asked: unknown[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params);
      return { action: 'accept', content: { speed: 'exp', extras: ['gift'], other: 'dropped' } };
    });
    const result = await client.callTool(SHIP);
    expect(asked).toEqual([
      { mode: 'form', message: 'How should the order ship?', requestedSchema: REQUESTED },
    ]);
    expect(result.structuredContent).toEqual({
      approved: true,
      data: { speed: 'exp', extras: ['gift'] },
    });
  });

  it('path 1: treats an answer that does not fit the form as cancelled', async () => {
    const { gw, alice } = await start();
    const client = await connectV2(gw.url, alice.mcpToken, { elicitation: true });
    const schema = withInputRequired(specTypeSchemas.CallToolResult);
    const manual = { allowInputRequired: true };
    const first = await client.request({ method: 'tools/call', params: SHIP }, schema, manual);
    expect(first).toMatchObject({
      resultType: 'input_required',
      inputRequests: { gateway_elicit: { params: { requestedSchema: REQUESTED } } },
    });
    const retried = await client.request(
      {
        method: 'tools/call',
        params: {
          ...SHIP,
          requestState: 'requestState' in first ? String(first.requestState) : '',
          // A client that does not check the form: a label instead of a value.
          inputResponses: { gateway_elicit: { action: 'accept', content: { speed: 'Express' } } },
        },
      },
      schema,
      manual,
    );
    expect(retried).toMatchObject({ structuredContent: { approved: false, data: null } });
    expect(await approvalOf(gw, alice)).toBe('cancelled');
    expect(gw.gateway.logs()).toContain('form answer does not fit the form');
  });

  it('path 2: asks a 2025 client on its session with the same fields', async () => {
    const { gw, alice } = await start();
    const { client } = await connectV1(gw.url, alice.mcpToken, { elicitation: true });
    const asked: unknown[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push('requestedSchema' in request.params ? request.params.requestedSchema : undefined);
      return { action: 'accept', content: { speed: 'std', note: 'Leave at door' } };
    });
    const result = await client.callTool(SHIP);
    expect(asked).toEqual([REQUESTED]);
    expect(result.structuredContent).toEqual({
      approved: true,
      data: { speed: 'std', note: 'Leave at door' },
    });
    expect(await approvalOf(gw, alice)).toBe('approved');
  });

  it('path 3: shows the fields in the pending approval, and approving answers with the defaults', async () => {
    const { gw, alice } = await start();
    const { client } = await connectV1(gw.url, alice.mcpToken);
    const call = client.callTool(SHIP);
    const pending = await waitForApproval(gw, alice);
    expect(pending.message).toBe(
      'How should the order ship?\n\n' +
        'The tool asks for: Speed (one of Standard, Express; default Standard; required), ' +
        'Extras (any of Gift wrap, Insurance; default none), Note (text).\n' +
        'Approving here answers with the defaults.',
    );
    await gw.gateway.request('POST', `/api/approvals/${pending.id}`, {
      as: alice,
      body: { decision: 'approve' },
    });
    expect((await call).structuredContent).toEqual({
      approved: true,
      data: { speed: 'std', extras: [] },
    });
  });

  it('fails a tool whose request is malformed, with the details in the log only', async () => {
    const { gw, alice } = await start();
    const { client } = await connectV1(gw.url, alice.mcpToken, { elicitation: true });
    const result = await client.callTool({ name: 'calls.orders.malformed', arguments: {} });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('failed unexpectedly');
    expect(gw.gateway.logs()).toContain("fields: fields are for type: 'form' only");
  });
});

describe('describeForm', () => {
  it('says which required fields approving outside the client cannot fill in', () => {
    expect(
      describeForm({
        fields: {
          email: { type: 'string', format: 'email', title: 'Email' },
          count: { type: 'integer', default: 2 },
          gift: { type: 'boolean', default: true },
          size: { type: 'string', enum: ['s', 'l'], enumNames: ['Small', 'Large'], default: 'l' },
        },
        required: ['email', 'count'],
      }),
    ).toBe(
      'The tool asks for: Email (an email address; required), count (a whole number; default 2; ' +
        'required), gift (yes or no; default yes), size (one of Small, Large; default Large).\n' +
        'Approving here cannot fill in Email: answer from an AI client that shows forms, or deny.',
    );
  });
});
