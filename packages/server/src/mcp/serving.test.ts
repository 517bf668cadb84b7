import { definePlugin, defineTool } from '@gateway/sdk';
import {
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  connectV1,
  connectV2,
  deleteEndpointOf,
  expectSlowWaitCancelled,
  INITIALIZE,
  startMcpGateway,
  waitForApproval,
} from '#test/mcp/mcp-test-kit.js';

function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe('MCP endpoint: access', () => {
  it('logs each request with its route pattern, the token never (issue 37: the route names itself)', async () => {
    const gw = await startMcpGateway();
    const alice = await gw.user();
    expect((await post(`${gw.url}/mcp`, INITIALIZE)).status).toBe(401);
    const bearer = { authorization: `Bearer ${alice.mcpToken}` };
    expect((await post(`${gw.url}/mcp`, INITIALIZE, bearer)).status).toBe(200);
    expect((await post(`${gw.url}/mcp/${alice.mcpToken}`, INITIALIZE)).status).toBe(200);
    const unknown = `gw_mcp_${'y'.repeat(40)}`;
    expect((await post(`${gw.url}/mcp/${unknown}`, INITIALIZE)).status).toBe(401);
    // The lines are written once each answer is on its way.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const logs = gw.gateway.logs();
    const requests = logs
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.msg === 'request');
    expect(requests.map(({ method, route, status }) => ({ method, route, status }))).toEqual([
      { method: 'POST', route: '/mcp', status: 401 },
      { method: 'POST', route: '/mcp', status: 200 },
      { method: 'POST', route: '/mcp/:token', status: 200 },
      { method: 'POST', route: '/mcp/:token', status: 401 },
    ]);
    expect(logs).not.toContain(alice.mcpToken);
    expect(logs).not.toContain(unknown);
  });

  it('answers 401 with WWW-Authenticate for a missing, unknown or deleted token', async () => {
    const gw = await startMcpGateway();
    const alice = await gw.user();

    const missing = await post(`${gw.url}/mcp`, INITIALIZE);
    expect(missing.status).toBe(401);
    // Gateway's authorization server is on by default: the challenge says where to sign in.
    expect(missing.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${gw.url}/.well-known/oauth-protected-resource/mcp", scope="mcp"`,
    );

    const unknown = await post(`${gw.url}/mcp/gw_mcp_${'x'.repeat(40)}`, INITIALIZE);
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(await unknown.json()).toMatchObject({ error: { code: 'unauthorized' } });

    // A CLI token is not an MCP credential.
    const cli = await post(`${gw.url}/mcp`, INITIALIZE, { authorization: `Bearer ${alice.token}` });
    expect(cli.status).toBe(401);

    const ok = await post(`${gw.url}/mcp`, INITIALIZE, {
      authorization: `Bearer ${alice.mcpToken}`,
    });
    expect(ok.status).toBe(200);

    await deleteEndpointOf(gw, alice.id);
    const deleted = await post(`${gw.url}/mcp/${alice.mcpToken}`, INITIALIZE);
    expect(deleted.status).toBe(401);
  });

  it('rejects a bad token from both SDK clients', async () => {
    const gw = await startMcpGateway();
    const bad = `gw_mcp_${'A'.repeat(40)}`;
    await expect(connectV1(gw.url, bad)).rejects.toThrow(/401|Unauthorized/i);
    await expect(connectV2(gw.url, bad)).rejects.toThrow(/401|Unauthorized/i);
  });

  it('takes the token in the URL and never logs it', async () => {
    const gw = await startMcpGateway();
    const alice = await gw.user({ admin: true });
    const { client } = await connectV1(gw.url, alice.mcpToken, { path: true });
    const result = await client.callTool({ name: 'demo.echo.say', arguments: { text: 'hi' } });
    expect(result.isError).toBeFalsy();
    const logs = gw.gateway.logs();
    expect(logs).toContain('"route":"/mcp/:token"');
    expect(logs).not.toContain(alice.mcpToken);
  });

  it('checks Host and Origin against DNS rebinding, the content type and the body size', async () => {
    const gw = await startMcpGateway({ maxBodyBytes: 2048 });
    const alice = await gw.user();
    const auth = { authorization: `Bearer ${alice.mcpToken}` };
    const url = `${gw.url}/mcp`;

    // fetch() will not send a forged Host header; a raw request can.
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        url,
        {
          method: 'POST',
          headers: {
            ...auth,
            host: 'evil.example.com',
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(INITIALIZE));
    });
    // Refused by the gateway's front door before the token is looked up (issue 13).
    expect(status).toBe(421);

    expect(
      (await post(url, INITIALIZE, { ...auth, origin: 'http://evil.example.com' })).status,
    ).toBe(403);
    // The port is part of the origin: another local app may not call the endpoint (issue 13).
    const own = new URL(gw.url);
    const otherPort = `http://localhost:${Number(own.port) === 3000 ? 3001 : 3000}`;
    expect((await post(url, INITIALIZE, { ...auth, origin: otherPort })).status).toBe(403);
    expect(
      (await post(url, INITIALIZE, { ...auth, origin: `http://localhost:${own.port}` })).status,
    ).toBe(200);
    expect((await post(url, INITIALIZE, { ...auth, origin: own.origin })).status).toBe(200);
    const text = await fetch(url, {
      method: 'POST',
      headers: {
        ...auth,
        'content-type': 'text/plain',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify(INITIALIZE),
    });
    expect(text.status).toBe(415);
    const big = await post(url, { ...INITIALIZE, padding: 'x'.repeat(4096) }, auth);
    expect(big.status).toBe(413);
    const notJson = await post(url, '{"jsonrpc":', auth);
    expect(notJson.status).toBe(400);

    const preflight = await fetch(url, {
      method: 'OPTIONS',
      headers: { origin: 'http://evil.example.com', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(405);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('MCP endpoint: tools/list', () => {
  it("lists exactly the caller's tools with titles, hints and the precomputed schemas", async () => {
    const gw = await startMcpGateway();
    const admin = await gw.user({ admin: true });
    for (const client of [
      (await connectV1(gw.url, admin.mcpToken)).client,
      await connectV2(gw.url, admin.mcpToken),
    ]) {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual([
        'demo.auth.whoami',
        'demo.echo.say',
        'demo.fail.bad_output',
        'demo.fail.crash',
        'demo.fail.tool_error',
        'demo.files.delete',
        'demo.slow.wait',
      ]);
      const catalog = gw.gateway.services.plugins;
      const echo = tools.find((tool) => tool.name === 'demo.echo.say');
      expect(echo).toMatchObject({
        title: 'Say',
        description: 'Echoes the text back.',
        annotations: { readOnlyHint: true, destructiveHint: false },
        inputSchema: catalog.tool('demo.echo.say')?.inputJsonSchema,
        outputSchema: catalog.tool('demo.echo.say')?.outputJsonSchema,
      });
      expect(tools.find((tool) => tool.name === 'demo.files.delete')?.annotations).toMatchObject({
        readOnlyHint: false,
        destructiveHint: true,
      });
    }
  });

  it('gives users with different roles different tools, and hides the others completely', async () => {
    const gw = await startMcpGateway();
    const admin = await gw.user({ admin: true });
    const reader = await gw.user({ roleId: 'reader' });
    const { client: readerClient } = await connectV1(gw.url, reader.mcpToken);
    const { client: adminClient } = await connectV1(gw.url, admin.mcpToken);

    expect((await readerClient.listTools()).tools.map((tool) => tool.name)).toEqual([
      'demo.echo.say',
    ]);
    expect((await adminClient.listTools()).tools).toHaveLength(7);

    const hidden = await readerClient
      .callTool({ name: 'demo.files.delete', arguments: { name: 'x' } })
      .catch((error: unknown) => error);
    const missing = await readerClient
      .callTool({ name: 'demo.files.nothing', arguments: { name: 'x' } })
      .catch((error: unknown) => error);
    expect(hidden).toBeInstanceOf(Error);
    expect(missing).toBeInstanceOf(Error);
    const describe = (error: unknown, name: string) =>
      error instanceof Error ? error.message.replace(name, '<name>') : String(error);
    expect(describe(hidden, 'demo.files.delete')).toBe(describe(missing, 'demo.files.nothing'));
    expect(gw.state.deleteRuns).toBe(0);

    const v2Reader = await connectV2(gw.url, reader.mcpToken);
    const v2Error = await v2Reader
      .callTool({ name: 'demo.files.delete', arguments: { name: 'x' } })
      .catch((error: unknown) => error);
    expect(String(v2Error)).toContain('Tool demo.files.delete not found');
  });

  it("gives two users with disjoint roles only their own tools, and neither can call the other's", async () => {
    const gw = await startMcpGateway();
    await gw.gateway.services.policy.createRole({
      id: 'cleaner',
      name: 'Cleaner',
      patterns: ['demo.files.*'],
    });
    const reader = await gw.user({ roleId: 'reader' });
    const cleaner = await gw.user({ roleId: 'cleaner' });
    const readerClient = await connectV2(gw.url, reader.mcpToken);
    const { client: cleanerClient } = await connectV1(gw.url, cleaner.mcpToken, {
      elicitation: true,
    });
    cleanerClient.setRequestHandler(ElicitRequestSchema, async () => ({
      action: 'accept',
      content: { approve: true },
    }));

    expect((await readerClient.listTools()).tools.map((tool) => tool.name)).toEqual([
      'demo.echo.say',
    ]);
    expect((await cleanerClient.listTools()).tools.map((tool) => tool.name)).toEqual([
      'demo.files.delete',
    ]);

    // Each calls their own.
    const echo = await readerClient.callTool({ name: 'demo.echo.say', arguments: { text: 'hi' } });
    expect(echo.structuredContent).toEqual({ text: 'hi', userId: reader.id });
    const deleted = await cleanerClient.callTool({
      name: 'demo.files.delete',
      arguments: { name: 'old.log' },
    });
    expect(deleted.structuredContent).toMatchObject({ deleted: 'old.log' });

    // Neither can call the other's: answered exactly as a tool that does not exist.
    const failure = (call: Promise<unknown>, name: string) =>
      call.then(
        () => 'succeeded',
        (error: unknown) => (error instanceof Error ? error.message.replace(name, '<name>') : ''),
      );
    const readerDeletes = await failure(
      readerClient.callTool({ name: 'demo.files.delete', arguments: { name: 'x' } }),
      'demo.files.delete',
    );
    expect(readerDeletes).toBe(
      await failure(
        readerClient.callTool({ name: 'demo.files.gone', arguments: { name: 'x' } }),
        'demo.files.gone',
      ),
    );
    expect(readerDeletes).toContain('Tool <name> not found');
    const cleanerEchoes = await failure(
      cleanerClient.callTool({ name: 'demo.echo.say', arguments: { text: 'x' } }),
      'demo.echo.say',
    );
    expect(cleanerEchoes).toBe(
      await failure(
        cleanerClient.callTool({ name: 'demo.echo.shout', arguments: { text: 'x' } }),
        'demo.echo.shout',
      ),
    );
    expect(cleanerEchoes).toContain('Tool <name> not found');
    expect(gw.state.deleted).toEqual(['old.log']);
  });

  it('serves a service account only the tools that allow service accounts', async () => {
    const gw = await startMcpGateway();
    const admin = await gw.user({ admin: true });
    const account = await gw.serviceAccount(admin);
    const { client } = await connectV1(gw.url, account.key);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['demo.echo.say']);
    const result = await client.callTool({ name: 'demo.echo.say', arguments: { text: 'hi' } });
    expect(result.structuredContent).toEqual({ text: 'hi', userId: account.id });

    // A tool its role allows but service accounts may not use is as unknown as no tool at all.
    const message = async (name: string) => {
      const error = await client
        .callTool({ name, arguments: { name: 'x' } })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      return error instanceof Error ? error.message.replace(name, '<name>') : String(error);
    };
    expect(await message('demo.files.delete')).toBe(await message('demo.files.nothing'));
    expect(await message('demo.files.delete')).toBe('MCP error -32602: Tool <name> not found');
    const raw = async (name: string) => {
      const response = await post(
        `${gw.url}/mcp`,
        {
          jsonrpc: '2.0',
          id: 3,
          method: 'tools/call',
          params: { name, arguments: { name: 'x' } },
        },
        { authorization: `Bearer ${account.key}`, 'mcp-protocol-version': '2025-06-18' },
      );
      return { status: response.status, body: (await response.text()).replace(name, '<name>') };
    };
    expect(await raw('demo.files.delete')).toEqual(await raw('demo.files.nothing'));
    expect(gw.state.deleteRuns).toBe(0);
  });

  it('tells 2025 sessions when the tool list changes', async () => {
    const gw = await startMcpGateway();
    const admin = await gw.user({ admin: true });
    const { client } = await connectV1(gw.url, admin.mcpToken);
    const changed = new Promise<void>((resolve) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
    );
    await client.listTools();
    gw.gateway.services.plugins.unmount('demo');
    await changed;
    expect((await client.listTools()).tools).toEqual([]);
  });

  it("tells a user's sessions when their role is edited", async () => {
    const gw = await startMcpGateway();
    const admin = await gw.user({ admin: true });
    const reader = await gw.user({ roleId: 'reader' });
    const { client } = await connectV1(gw.url, reader.mcpToken);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['demo.echo.say']);
    const changed = new Promise<void>((resolve) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
    );
    const edited = await gw.gateway.request('PUT', '/api/policy/roles/reader', {
      as: admin,
      body: { id: 'reader', name: 'Reader', patterns: ['demo.echo.*', 'demo.files.*'] },
    });
    expect(edited.status).toBe(200);
    await changed;
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([
      'demo.echo.say',
      'demo.files.delete',
    ]);
  });

  it('tells only the sessions of the user whose role assignment changed', async () => {
    const gw = await startMcpGateway();
    const admin = await gw.user({ admin: true });
    const bob = await gw.user({ roleId: 'reader' });
    const carol = await gw.user({ roleId: 'reader' });
    const { client: bobClient } = await connectV1(gw.url, bob.mcpToken);
    const { client: carolClient } = await connectV1(gw.url, carol.mcpToken);
    let carolHeard = 0;
    carolClient.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      carolHeard += 1;
    });
    const bobHeard = new Promise<void>((resolve) =>
      bobClient.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
    );
    await bobClient.listTools();
    await carolClient.listTools();

    const assigned = await gw.gateway.request('PUT', `/api/policy/users/${bob.id}/role`, {
      as: admin,
      body: { roleId: 'admin' },
    });
    expect(assigned.status).toBe(200);
    await bobHeard;
    expect((await bobClient.listTools()).tools).toHaveLength(7);
    // Carol's role did not change: her session hears nothing. The sessions a role change concerns
    // are told in one pass, so she would have heard with bob, before this round trip.
    await carolClient.listTools();
    expect(carolHeard).toBe(0);
  });
});

describe('MCP endpoint: tools/call', () => {
  it('returns structured output and its text to both clients', async () => {
    const gw = await startMcpGateway();
    const alice = await gw.user({ roleId: 'reader' });
    const { client: v1 } = await connectV1(gw.url, alice.mcpToken);
    const v2 = await connectV2(gw.url, alice.mcpToken);
    for (const client of [v1, v2]) {
      const result = await client.callTool({ name: 'demo.echo.say', arguments: { text: 'hello' } });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ text: 'hello', userId: alice.id });
      expect(result.content).toEqual([
        { type: 'text', text: JSON.stringify({ text: 'hello', userId: alice.id }) },
      ]);
    }
  });

  it('answers invalid input with a tool error listing the issues, not a protocol error', async () => {
    const gw = await startMcpGateway();
    const alice = await gw.user({ admin: true });
    const { client } = await connectV1(gw.url, alice.mcpToken);
    const result = await client.callTool({ name: 'demo.echo.say', arguments: { text: 42 } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/Invalid input for demo\.echo\.say:\\ntext: /);
  });

  // Issue 18: a misspelled argument was dropped silently and the tool ran without it.
  it('refuses arguments the tool does not declare, naming them, and does not run the tool', async () => {
    const runs: unknown[] = [];
    const notes = definePlugin({
      id: 'jot',
      name: 'Jot',
      description: 'Takes notes.',
      tools: [
        defineTool({
          path: 'jot.notes.create',
          name: 'Create Note',
          description: 'Creates a note.',
          inputSchema: z.object({ title: z.string(), body: z.string().optional() }),
          async handler(_ctx, input) {
            runs.push(input);
            return { ok: true };
          },
        }),
        defineTool({
          path: 'jot.notes.tag',
          name: 'Tag Note',
          description: 'Takes any extra field as a tag.',
          inputSchema: z.looseObject({ title: z.string() }),
          async handler(_ctx, input) {
            runs.push(input);
            return { ok: true };
          },
        }),
      ],
    });
    const gw = await startMcpGateway({ plugins: [notes] });
    const alice = await gw.user({ admin: true });
    const { client: v1 } = await connectV1(gw.url, alice.mcpToken);
    const v2 = await connectV2(gw.url, alice.mcpToken);

    const { tools } = await v1.listTools();
    const schemaOf = (name: string) => tools.find((tool) => tool.name === name)?.inputSchema;
    expect(schemaOf('jot.notes.create')).toMatchObject({ additionalProperties: false });
    expect(schemaOf('demo.echo.say')).toMatchObject({ additionalProperties: false });
    expect(schemaOf('jot.notes.tag')).toMatchObject({ additionalProperties: {} });
    const resolved = await gw.gateway.request('GET', `/api/policy/resolve?userId=${alice.id}`, {
      as: alice,
    });
    const body = (await resolved.json()) as { tools: { path: string; inputSchema: unknown }[] };
    expect(body.tools.find((tool) => tool.path === 'jot.notes.create')?.inputSchema).toMatchObject({
      additionalProperties: false,
    });

    for (const client of [v1, v2]) {
      const result = await client.callTool({
        name: 'jot.notes.create',
        arguments: { title: 'Groceries', text: 'milk' },
      });
      expect(result.isError).toBe(true);
      expect(result.content).toEqual([
        {
          type: 'text',
          text: 'Invalid input for jot.notes.create:\ntext: unknown argument (the arguments are: title, body)',
        },
      ]);
    }
    expect(runs).toEqual([]);

    const tagged = await v1.callTool({
      name: 'jot.notes.tag',
      arguments: { title: 'Groceries', urgent: true },
    });
    expect(tagged.isError).toBeFalsy();
    expect(runs).toEqual([{ title: 'Groceries', urgent: true }]);
  });

  it('maps tool errors, crashes, bad output and missing credentials to error results', async () => {
    const gw = await startMcpGateway();
    const alice = await gw.user({ admin: true });
    const { client } = await connectV1(gw.url, alice.mcpToken);
    const text = async (name: string) => {
      const result = await client.callTool({ name, arguments: {} });
      expect(result.isError).toBe(true);
      return JSON.stringify(result.content);
    };

    expect(await text('demo.fail.tool_error')).toContain('The upstream service said no.');

    const crash = await text('demo.fail.crash');
    expect(crash).toMatch(/demo\.fail\.crash failed unexpectedly.*execution id [0-9a-f-]{36}/);
    expect(crash).not.toContain('hunter2');
    const logs = gw.gateway.logs();
    expect(logs).toContain('tool failed');
    expect(logs).toContain('at Object.handler');

    expect(await text('demo.fail.bad_output')).toContain('does not match its output schema');

    const auth = await client.callTool({ name: 'demo.auth.whoami', arguments: {} });
    expect(auth.isError).toBe(true);
    // Said once, with the gateway's address.
    expect(auth.content).toEqual([
      {
        type: 'text',
        text: `No credential for "github". Connect it in the Tools tab of ${gw.url} or run \`gateway connect github\`.`,
      },
    ]);
  });

  it('stops a handler at its time limit', async () => {
    const gw = await startMcpGateway({ mcp: { toolTimeoutMs: 150 } });
    const alice = await gw.user({ admin: true });
    const v2 = await connectV2(gw.url, alice.mcpToken);
    const result = await v2.callTool({ name: 'demo.slow.wait', arguments: {} });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('did not finish within 0.2 s');
    await gw.gateway.services.executions.flush();
    const row = await gw.gateway.services.database.db
      .selectFrom('executions')
      .selectAll()
      .where('tool_path', '=', 'demo.slow.wait')
      .executeTakeFirstOrThrow();
    expect(row.outcome).toBe('timeout');
  });

  it('records every call with its outcome, user and redacted arguments', async () => {
    const gw = await startMcpGateway();
    const alice = await gw.user({ admin: true });
    const { client } = await connectV1(gw.url, alice.mcpToken);
    await client.callTool({
      name: 'demo.echo.say',
      arguments: { text: 'hi', apiKey: 'sk-abcdefghijklmnopqrstu' },
    });
    await client.callTool({ name: 'demo.fail.tool_error', arguments: {} });
    await client.callTool({ name: 'demo.nope.nothing', arguments: {} }).catch(() => {});
    const response = await gw.gateway.request('GET', `/api/executions?userId=${alice.id}`, {
      as: alice,
    });
    const { executions } = (await response.json()) as {
      executions: { toolPath: string; outcome: string; arguments: unknown; userId: string }[];
    };
    expect(executions.map((e) => [e.toolPath, e.outcome])).toEqual([
      ['demo.nope.nothing', 'denied'],
      ['demo.fail.tool_error', 'error'],
      // Refused: apiKey is no argument of it; recorded all the same, the key masked.
      ['demo.echo.say', 'error'],
    ]);
    expect(executions[2]?.arguments).toEqual({ text: 'hi', apiKey: '[redacted]' });
    expect(executions.every((e) => e.userId === alice.id)).toBe(true);
  });

  it('forwards plugin log lines to a 2025 client that asked for them', async () => {
    const gw = await startMcpGateway();
    const alice = await gw.user({ admin: true });
    const { client } = await connectV1(gw.url, alice.mcpToken);
    const messages: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      messages.push(n.params);
    });
    await client.callTool({ name: 'demo.echo.say', arguments: { text: 'quiet' } });
    expect(messages).toEqual([]);
    await client.setLoggingLevel('info');
    await client.callTool({ name: 'demo.echo.say', arguments: { text: 'loud' } });
    expect(messages).toEqual([
      { level: 'info', logger: 'demo.echo.say', data: { message: 'echo', length: 4 } },
    ]);
  });

  it('writes ctx.logger lines to the server log with the tool, execution and user', async () => {
    const gw = await startMcpGateway();
    const alice = await gw.user({ roleId: 'reader' });
    const { client } = await connectV1(gw.url, alice.mcpToken);
    await client.callTool({ name: 'demo.echo.say', arguments: { text: 'hello' } });
    await gw.gateway.services.executions.flush();
    const [execution] = await gw.gateway.services.database.db
      .selectFrom('executions')
      .select('id')
      .where('tool_path', '=', 'demo.echo.say')
      .execute();
    const lines = gw.gateway
      .logs()
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.filter((line) => line.msg === 'echo')).toEqual([
      {
        time: expect.any(String),
        level: 'info',
        msg: 'echo',
        tool: 'demo.echo.say',
        executionId: execution?.id,
        userId: alice.id,
        // The request's id, as every log line of a request carries (issue 30).
        requestId: expect.any(String),
        length: 5,
      },
    ]);
  });

  it("aborts the handler's signal when the client cancels the call", async () => {
    const gw = await startMcpGateway();
    const alice = await gw.user({ admin: true });
    const { client } = await connectV1(gw.url, alice.mcpToken);
    const controller = new AbortController();
    const call = client.callTool({ name: 'demo.slow.wait', arguments: {} }, undefined, {
      signal: controller.signal,
    });
    // Once the handler runs (its log line is written), the client cancels: notifications/cancelled.
    for (let i = 0; i < 200 && !gw.gateway.logs().includes('waiting until stopped'); i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    controller.abort('changed my mind');
    await expect(call).rejects.toThrow();
    await expectSlowWaitCancelled(gw);
  });

  it('holds a 2025-06-18 session: list, call, and an approval asked on the session', async () => {
    const gw = await startMcpGateway();
    const alice = await gw.user({ admin: true });
    const { client, transport } = await connectV1(gw.url, alice.mcpToken, {
      protocolVersion: '2025-06-18',
      elicitation: true,
    });
    expect(transport.protocolVersion).toBe('2025-06-18');
    expect(transport.sessionId).toEqual(expect.any(String));
    expect((await client.listTools()).tools).toHaveLength(7);
    const echo = await client.callTool({ name: 'demo.echo.say', arguments: { text: 'old' } });
    expect(echo.structuredContent).toEqual({ text: 'old', userId: alice.id });
    client.setRequestHandler(ElicitRequestSchema, async () => ({
      action: 'accept',
      content: { approve: true },
    }));
    const deleted = await client.callTool({
      name: 'demo.files.delete',
      arguments: { name: 'a.txt' },
    });
    expect(deleted.structuredContent).toMatchObject({ deleted: 'a.txt' });
    // Asked on the session: the handler ran once.
    expect(gw.state).toMatchObject({ deleted: ['a.txt'], deleteRuns: 1 });
  });

  it('serves 2025 requests without a session statelessly', async () => {
    const gw = await startMcpGateway();
    const alice = await gw.user({ admin: true });
    const response = await post(
      `${gw.url}/mcp`,
      { jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} },
      { authorization: `Bearer ${alice.mcpToken}`, 'mcp-protocol-version': '2025-06-18' },
    );
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('demo.echo.say');
  });

  it('keeps a session to the principal that opened it', async () => {
    const gw = await startMcpGateway();
    const alice = await gw.user({ admin: true });
    const bob = await gw.user({ admin: true });
    const { transport } = await connectV1(gw.url, alice.mcpToken);
    const response = await post(
      `${gw.url}/mcp`,
      { jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} },
      {
        authorization: `Bearer ${bob.mcpToken}`,
        'mcp-session-id': transport.sessionId ?? '',
        'mcp-protocol-version': '2025-11-25',
      },
    );
    expect(response.status).toBe(404);
  });
});

describe('MCP endpoint: shutdown', () => {
  it('stops while a 2025 client keeps its session stream open and a call waits for approval', async () => {
    const gw = await startMcpGateway();
    const alice = await gw.user({ admin: true });
    const { client } = await connectV1(gw.url, alice.mcpToken);
    void client.callTool({ name: 'demo.files.delete', arguments: { name: 'x' } }).catch(() => {});
    // No elicitation declared: the call waits on the approvals path.
    await waitForApproval(gw, alice);
    const stopped = await Promise.race([
      gw.gateway.stop().then(() => 'stopped'),
      new Promise((resolve) => setTimeout(() => resolve('hung'), 5000)),
    ]);
    expect(stopped).toBe('stopped');
    expect(gw.state.deleted).toEqual([]);
  });

  it('stops while a 2026-07-28 call waits for approval, and the call is not carried out', async () => {
    const gw = await startMcpGateway();
    const alice = await gw.user({ admin: true });
    // No elicitation declared: the call waits on the approvals path inside its request.
    const client = await connectV2(gw.url, alice.mcpToken);
    const call = client.callTool({ name: 'demo.files.delete', arguments: { name: 'x' } }).then(
      () => 'answered',
      () => 'failed',
    );
    await waitForApproval(gw, alice);
    const stopped = await Promise.race([
      gw.gateway.stop().then(() => 'stopped'),
      // Promptly: the client's keep-alive connection does not hold the stop (about 3 s before).
      new Promise((resolve) => setTimeout(() => resolve('hung'), 1500)),
    ]);
    expect(stopped).toBe('stopped');
    expect(await call).toBe('failed');
    expect(gw.state.deleted).toEqual([]);
  });
});
