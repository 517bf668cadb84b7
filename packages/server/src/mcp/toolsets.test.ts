/**
 * Endpoints as toolsets and discovery mode (issue 33), over real HTTP with the MCP SDK v1 and v2
 * clients: an endpoint serves its user's role narrowed by its `tools`, a PATCH narrows a live
 * session with one `tools/list_changed` to that endpoint's sessions alone, and a discovery
 * endpoint serves the meta-tools, whose `gateway.call_tool` runs the real tool as a direct call.
 */
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import {
  connectV1,
  connectV2,
  type McpTestGateway,
  type McpTestUser,
  recordsOf,
  startMcpGateway,
  waitForApproval,
} from '#test/mcp/mcp-test-kit.js';
import { toolsetPlugins } from '#test/mcp/toolset-plugins.js';
import { rememberSecret } from '#test/support/known-secrets.js';

const ALL_NOTES_AND_CRM = [
  'crm.contacts.create',
  'crm.contacts.list',
  'crm.notes.attach',
  'notes.notes.create',
  'notes.notes.delete',
  'notes.notes.get',
  'notes.notes.list',
];

async function gateway(created: string[] = []) {
  const gw = await startMcpGateway({ plugins: toolsetPlugins(created) });
  await gw.gateway.services.policy.createRole({
    id: 'writer',
    name: 'Writer',
    patterns: ['notes.**', 'crm.**'],
  });
  return gw;
}

/** Sends an API request over real HTTP as `user` (their CLI token). */
async function api(
  gw: McpTestGateway,
  user: McpTestUser,
  method: string,
  path: string,
  body?: unknown,
): Promise<Response> {
  return fetch(`${gw.url}${path}`, {
    method,
    headers: { ...user.headers, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** A new endpoint of `user` made through the API, with its token and id. */
async function endpoint(
  gw: McpTestGateway,
  user: McpTestUser,
  fields: { tools?: string[]; mode?: 'tools' | 'discovery' } = {},
): Promise<{ id: string; token: string }> {
  const response = await api(gw, user, 'POST', '/api/connections/mcp-endpoints', {
    userId: user.id,
    name: `endpoint-${crypto.randomUUID().slice(0, 8)}`,
    ...fields,
  });
  expect(response.status).toBe(201);
  const created = (await response.json()) as { id: string; token: string; tools: unknown };
  rememberSecret(created.token);
  return created;
}

const names = (tools: readonly { name: string }[]) => tools.map((tool) => tool.name).sort();

describe('an endpoint with tools serves its role narrowed to them', () => {
  it('lists exactly that tool and refuses another as unknown, while another endpoint of the same user does not (v1)', async () => {
    const gw = await gateway();
    const ada = await gw.user({ roleId: 'writer' });
    const narrow = await endpoint(gw, ada, { tools: ['notes.notes.list'] });
    const { client } = await connectV1(gw.url, narrow.token);
    expect(names((await client.listTools()).tools)).toEqual(['notes.notes.list']);
    expect(
      (await client.callTool({ name: 'notes.notes.list', arguments: {} })).isError,
    ).toBeFalsy();

    // Refused exactly as a tool that does not exist is.
    const refused = client.callTool({ name: 'notes.notes.create', arguments: { title: 'x' } });
    await expect(refused).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Tool notes.notes.create not found'),
    });
    const missing = client.callTool({ name: 'notes.notes.nothing', arguments: { title: 'x' } });
    await expect(missing).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Tool notes.notes.nothing not found'),
    });

    // Ada's other endpoint (the whole role) lists and runs it.
    const whole = await endpoint(gw, ada);
    const { client: other } = await connectV1(gw.url, whole.token, { elicitation: true });
    other.setRequestHandler(
      (await import('@modelcontextprotocol/sdk/types.js')).ElicitRequestSchema,
      async () => ({ action: 'accept', content: { approve: true } }),
    );
    expect(names((await other.listTools()).tools)).toEqual(ALL_NOTES_AND_CRM);
    const ran = await other.callTool({ name: 'notes.notes.create', arguments: { title: 'Hi' } });
    expect(ran.isError).toBeFalsy();
    expect(ran.structuredContent).toMatchObject({ title: 'Hi' });
  });

  it('does the same for the v2 client, and never serves more than the role', async () => {
    const gw = await gateway();
    const bob = await gw.user({ roleId: 'reader' });
    // `reader` allows demo.echo.* only: patterns reaching beyond the role add nothing.
    const narrow = await endpoint(gw, bob, { tools: ['notes.notes.list', 'demo.**'] });
    const client = await connectV2(gw.url, narrow.token);
    expect(names((await client.listTools()).tools)).toEqual(['demo.echo.say']);
    await expect(
      client.callTool({ name: 'notes.notes.list', arguments: {} }),
    ).rejects.toMatchObject({
      message: expect.stringContaining('Tool notes.notes.list not found'),
    });

    const ada = await gw.user({ roleId: 'writer' });
    const listOnly = await endpoint(gw, ada, { tools: ['notes.notes.list'] });
    const adaClient = await connectV2(gw.url, listOnly.token);
    expect(names((await adaClient.listTools()).tools)).toEqual(['notes.notes.list']);
    await expect(
      adaClient.callTool({ name: 'notes.notes.create', arguments: { title: 'x' } }),
    ).rejects.toMatchObject({
      message: expect.stringContaining('Tool notes.notes.create not found'),
    });
    const whole = await endpoint(gw, ada);
    const wholeClient = await connectV2(gw.url, whole.token);
    expect(names((await wholeClient.listTools()).tools)).toEqual(ALL_NOTES_AND_CRM);
    const refusedRecords = await recordsOf(gw, 'notes.notes.create');
    expect(refusedRecords.map((record) => record.outcome)).toEqual(['denied']);
  });

  it('keeps a session to the endpoint it was opened through', async () => {
    const gw = await gateway();
    const ada = await gw.user({ roleId: 'writer' });
    const narrow = await endpoint(gw, ada, { tools: ['notes.notes.list'] });
    const whole = await endpoint(gw, ada);
    const { transport } = await connectV1(gw.url, whole.token);
    const sessionId = transport.sessionId ?? '';
    // The narrow endpoint's token naming the wide session's id: as unknown as a closed session.
    const response = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${narrow.token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list' }),
    });
    expect(response.status).toBe(404);
    await response.body?.cancel();
  });
});

describe('PATCH /api/connections/mcp-endpoints/:id', () => {
  it('narrows a live session with one tools/list_changed, to that endpoint’s sessions alone', async () => {
    const gw = await gateway();
    const ada = await gw.user({ roleId: 'writer' });
    const first = await endpoint(gw, ada);
    const second = await endpoint(gw, ada);
    const { client: changed } = await connectV1(gw.url, first.token);
    const { client: untouched } = await connectV1(gw.url, second.token);
    let heardChanged = 0;
    let heardUntouched = 0;
    const heard = new Promise<void>((resolve) =>
      changed.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        heardChanged += 1;
        resolve();
      }),
    );
    untouched.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      heardUntouched += 1;
    });
    expect(names((await changed.listTools()).tools)).toEqual(ALL_NOTES_AND_CRM);
    expect(names((await untouched.listTools()).tools)).toEqual(ALL_NOTES_AND_CRM);

    const patched = await api(gw, ada, 'PATCH', `/api/connections/mcp-endpoints/${first.id}`, {
      userId: ada.id,
      tools: ['notes.notes.list'],
    });
    expect(patched.status).toBe(200);
    expect(await patched.json()).toMatchObject({
      endpoint: { id: first.id, tools: ['notes.notes.list'], mode: 'tools' },
    });
    await heard;
    expect(names((await changed.listTools()).tools)).toEqual(['notes.notes.list']);
    await expect(
      changed.callTool({ name: 'notes.notes.create', arguments: { title: 'x' } }),
    ).rejects.toMatchObject({ code: -32602 });
    expect(names((await untouched.listTools()).tools)).toEqual(ALL_NOTES_AND_CRM);
    // The sessions an endpoint change concerns are told in one pass: anything else it sent
    // went out with the first notification, round trips ago.
    expect(heardChanged).toBe(1);
    expect(heardUntouched).toBe(0);

    const listed = await api(gw, ada, 'GET', `/api/connections/mcp-endpoints?userId=${ada.id}`);
    const { endpoints } = (await listed.json()) as {
      endpoints: { id: string; tools: unknown; mode: unknown }[];
    };
    const mine = endpoints.filter(({ id }) => id === first.id || id === second.id);
    expect(mine.map(({ id, tools, mode }) => ({ id, tools, mode }))).toEqual([
      { id: first.id, tools: ['notes.notes.list'], mode: 'tools' },
      { id: second.id, tools: null, mode: 'tools' },
    ]);
  });

  it('is the owner’s or an admin’s: another user gets 403 naming the owner, 404 through their own id', async () => {
    const gw = await gateway();
    const ada = await gw.user({ roleId: 'writer' });
    const eve = await gw.user({ roleId: 'writer' });
    const admin = await gw.user({ admin: true });
    const target = await endpoint(gw, ada);
    const path = `/api/connections/mcp-endpoints/${target.id}`;
    expect((await api(gw, eve, 'PATCH', path, { userId: ada.id, mode: 'discovery' })).status).toBe(
      403,
    );
    expect((await api(gw, eve, 'PATCH', path, { userId: eve.id, mode: 'discovery' })).status).toBe(
      404,
    );
    const bad = await api(gw, ada, 'PATCH', path, { userId: ada.id, tools: ['Notes..x'] });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: 'validation_failed' } });
    const byAdmin = await api(gw, admin, 'PATCH', path, {
      userId: ada.id,
      mode: 'discovery',
      tools: ['later.**'],
    });
    expect(byAdmin.status).toBe(200);
    expect(await byAdmin.json()).toMatchObject({
      endpoint: { tools: ['later.**'], mode: 'discovery' },
    });
  });
});

describe('POST /api/connections/mcp-endpoints/preview', () => {
  it('previews the role narrowed by the patterns, and says which match nothing today', async () => {
    const gw = await gateway();
    const bob = await gw.user({ roleId: 'reader' });
    const response = await api(gw, bob, 'POST', '/api/connections/mcp-endpoints/preview', {
      userId: bob.id,
      tools: ['demo.**', 'notes.**', 'bad..pattern'],
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      patterns: [
        { pattern: 'demo.**', problem: null, matches: 1 },
        // notes exists, but not in bob's role: it matches nothing he may call.
        { pattern: 'notes.**', problem: null, matches: 0 },
        { pattern: 'bad..pattern', problem: expect.stringContaining('segment 2'), matches: 0 },
      ],
      tools: [{ path: 'demo.echo.say', name: 'Say', pluginId: 'demo', destructive: false }],
      totalTools: 1,
    });
  });
});

describe('a discovery endpoint', () => {
  it('lists the three meta-tools, ranks by search, and describes (v1)', async () => {
    const gw = await gateway();
    const ada = await gw.user({ roleId: 'writer' });
    const discovery = await endpoint(gw, ada, { mode: 'discovery' });
    const { client } = await connectV1(gw.url, discovery.token);
    const { tools } = await client.listTools();
    expect(names(tools)).toEqual([
      'gateway.call_tool',
      'gateway.describe_tools',
      'gateway.search_tools',
    ]);

    const found = await client.callTool({
      name: 'gateway.search_tools',
      arguments: { query: 'create note' },
    });
    expect(found.isError).toBeFalsy();
    const answer = found.structuredContent as {
      tools: { name: string; asksApproval: boolean; description: string }[];
      total: number;
    };
    expect(answer.tools[0]).toEqual({
      name: 'notes.notes.create',
      title: 'Create Note',
      description: 'Creates a note.',
      asksApproval: true,
    });
    expect(answer.total).toBe(answer.tools.length);

    const all = await client.callTool({ name: 'gateway.search_tools', arguments: { query: '' } });
    expect(all.structuredContent).toMatchObject({ total: 7 });
    expect(
      (all.structuredContent as { tools: { name: string }[] }).tools.map((tool) => tool.name),
    ).toEqual(ALL_NOTES_AND_CRM);

    const described = await client.callTool({
      name: 'gateway.describe_tools',
      arguments: { names: ['notes.notes.create', 'demo.echo.say'] },
    });
    expect(described.structuredContent).toMatchObject({
      tools: [
        {
          name: 'notes.notes.create',
          inputSchema: { properties: { title: { type: 'string' } } },
          annotations: { destructiveHint: true },
        },
      ],
      // demo.echo.say exists, but not in this role: as unknown as a name of nothing.
      notFound: ['demo.echo.say'],
      omitted: [],
    });

    const tooMany = await client.callTool({
      name: 'gateway.search_tools',
      arguments: { query: 'note', limit: 51 },
    });
    expect(tooMany.isError).toBe(true);
  });

  it('runs gateway.call_tool as a direct call: approval names the real tool, the record is under its path (v1, session elicitation)', async () => {
    const created: string[] = [];
    const gw = await gateway(created);
    const ada = await gw.user({ roleId: 'writer' });
    const discovery = await endpoint(gw, ada, { mode: 'discovery' });
    const { client } = await connectV1(gw.url, discovery.token, { elicitation: true });
    const asked: string[] = [];
    const { ElicitRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { approve: true } };
    });
    await client.listTools();
    const result = await client.callTool({
      name: 'gateway.call_tool',
      arguments: { name: 'notes.notes.create', arguments: { title: 'Groceries' } },
    });
    expect(result.isError).toBeFalsy();
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('Tool: notes.notes.create');
    expect(created).toEqual(['Groceries']);
    const records = await recordsOf(gw, 'notes.notes.create');
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ outcome: 'ok', approval: 'approved', user_id: ada.id });
    expect(result.structuredContent).toMatchObject({ executionId: records[0]?.id });
    expect(await recordsOf(gw, 'gateway.call_tool')).toEqual([]);

    // Validation is the real tool's.
    const invalid = await client.callTool({
      name: 'gateway.call_tool',
      arguments: { name: 'notes.notes.create', arguments: { title: '' } },
    });
    expect(invalid.isError).toBe(true);
    expect(JSON.stringify(invalid.content)).toContain('Invalid input for notes.notes.create');
  });

  it('runs gateway.call_tool through an input_required round of the v2 client', async () => {
    const created: string[] = [];
    const gw = await gateway(created);
    const ada = await gw.user({ roleId: 'writer' });
    const discovery = await endpoint(gw, ada, { mode: 'discovery', tools: ['notes.**'] });
    const client = await connectV2(gw.url, discovery.token, { elicitation: true });
    const asked: string[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { approve: true } };
    });
    expect(names((await client.listTools()).tools)).toEqual([
      'gateway.call_tool',
      'gateway.describe_tools',
      'gateway.search_tools',
    ]);
    const result = await client.callTool({
      name: 'gateway.call_tool',
      arguments: { name: 'notes.notes.create', arguments: { title: 'Plan' } },
    });
    expect(result.isError).toBeFalsy();
    expect(asked).toEqual([
      'Create the note "Plan"?\n\nTool: notes.notes.create\nArguments: {"title":"Plan"}',
    ]);
    expect(created).toEqual(['Plan']);
    const records = await recordsOf(gw, 'notes.notes.create');
    expect(records.map((record) => [record.outcome, record.approval])).toEqual([
      ['ok', 'approved'],
    ]);

    // Outside the toolset through call_tool: refused as unknown, and searching never shows it.
    await expect(
      client.callTool({
        name: 'gateway.call_tool',
        arguments: { name: 'crm.contacts.create', arguments: { fullName: 'x' } },
      }),
    ).rejects.toMatchObject({
      message: expect.stringContaining('Tool crm.contacts.create not found'),
    });
    const search = await client.callTool({
      name: 'gateway.search_tools',
      arguments: { query: 'create contact' },
    });
    expect(
      (search.structuredContent as { tools: { name: string }[] }).tools.map((tool) => tool.name),
    ).not.toContain('crm.contacts.create');
  });

  it('asks for approval in the approvals list when the client cannot be asked', async () => {
    const created: string[] = [];
    const gw = await gateway(created);
    const ada = await gw.user({ roleId: 'writer' });
    const discovery = await endpoint(gw, ada, { mode: 'discovery' });
    const { client } = await connectV1(gw.url, discovery.token);
    const call = client.callTool({
      name: 'gateway.call_tool',
      arguments: { name: 'notes.notes.create', arguments: { title: 'Later' } },
    });
    const approval = await waitForApproval(gw, ada);
    expect(approval).toMatchObject({ toolPath: 'notes.notes.create', status: 'pending' });
    const decided = await gw.gateway.request('POST', `/api/approvals/${approval.id}`, {
      as: ada,
      body: { decision: 'approve' },
    });
    expect(decided.status).toBe(200);
    expect((await call).isError).toBeFalsy();
    expect(created).toEqual(['Later']);
  });
});

describe('the gateway namespace', () => {
  it('is refused to a plugin or upstream registered through the API', async () => {
    const gw = await gateway();
    const admin = await gw.user({ admin: true });
    for (const body of [
      { type: 'plugin', id: 'shadow', namespace: 'gateway', pluginId: 'notes' },
      { type: 'mcp', id: 'shadow', namespace: 'gateway', url: 'https://mcp.example.test/mcp' },
    ]) {
      const response = await api(gw, admin, 'POST', '/api/registry/sources', body);
      expect(response.status).toBe(400);
      expect(JSON.stringify(await response.json())).toContain('reserved');
    }
  });
});
