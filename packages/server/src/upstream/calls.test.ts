/**
 * Issue 16: an upstream's tools behind the same credentials, approvals, service-account rules and
 * records as plugin tools. The `header` credential is vended per calling user in `getToken`'s
 * order, and one user's credential never travels on another user's call.
 */
import { describe, expect, it } from 'vitest';
import { connectV1, connectV2, startMcpGateway } from '#test/mcp/mcp-test-kit.js';
import { rememberSecret } from '#test/support/known-secrets.js';
import { addConnection } from '#test/upstream/connections.js';
import { digest, startFakeUpstream } from '#test/upstream/fake-upstream.js';
import { registerSource } from '#test/upstream/register-source.js';

const ALLOW_PRIVATE = { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true' };

describe('header auth', () => {
  it("sends the caller's own credential, else the team's, else the server key, never another user's", async () => {
    const fake = await startFakeUpstream([{ name: 'whoami', behaviour: { kind: 'answer' } }]);
    rememberSecret('server-fake-key');
    const mcp = await startMcpGateway({
      env: { ...ALLOW_PRIVATE, FAKEAPI_API_KEY: 'server-fake-key' },
    });
    const answer = await registerSource(mcp.url, {
      type: 'mcp',
      id: 'fake',
      namespace: 'fake',
      url: fake.url,
      auth: { kind: 'header', provider: 'fakeapi', header: 'Authorization', scheme: 'Bearer' },
    });
    expect(answer.status).toBe(201);
    const alice = await mcp.user({ admin: true });
    const bob = await mcp.user({ admin: true });
    await addConnection(mcp.gateway, { userId: alice.id, toolId: 'fakeapi', secret: 'alice-key' });
    const team = await addConnection(mcp.gateway, {
      userId: alice.id,
      owner: 'team',
      toolId: 'fakeapi',
      secret: 'team-key',
    });
    const onAlice = await connectV2(mcp.url, alice.mcpToken);
    const onBob = await connectV2(mcp.url, bob.mcpToken);
    const sent = async (client: typeof onAlice) => {
      const before = fake.calls.length;
      const result = await client.callTool({ name: 'fake.whoami', arguments: {} });
      expect(result.isError).toBeFalsy();
      return fake.calls.slice(before).map((call) => call.authorization);
    };

    expect(await sent(onAlice)).toEqual(['Bearer alice-key']);
    expect(await sent(onBob)).toEqual(['Bearer team-key']);
    // Interleaved, on the pooled sessions: each call carries its own caller's credential.
    const as = async (client: typeof onAlice) =>
      JSON.stringify((await client.callTool({ name: 'fake.whoami', arguments: {} })).content);
    const both = await Promise.all(
      Array.from({ length: 8 }, (_, i) => as(i % 2 === 0 ? onAlice : onBob)),
    );
    both.forEach((text, i) => {
      expect(text).toContain(`as ${digest(i % 2 === 0 ? 'Bearer alice-key' : 'Bearer team-key')}`);
    });
    await mcp.gateway.services.database.db
      .deleteFrom('connections')
      .where('id', '=', team)
      .execute();
    expect(await sent(onBob)).toEqual(['Bearer server-fake-key']);
    expect(await sent(onAlice)).toEqual(['Bearer alice-key']);
    const bobs = fake.calls.filter((call) => call.authorization !== 'Bearer alice-key');
    expect(bobs.length).toBeGreaterThan(0);
    expect(JSON.stringify(bobs)).not.toContain('alice-key');
  });

  it('says to reconnect when the upstream answers 401', async () => {
    const fake = await startFakeUpstream([
      { name: 'guarded', behaviour: { kind: 'status', status: 401 } },
    ]);
    rememberSecret('server-fake-key');
    const mcp = await startMcpGateway({
      env: { ...ALLOW_PRIVATE, FAKEAPI_API_KEY: 'server-fake-key' },
    });
    await registerSource(mcp.url, {
      type: 'mcp',
      id: 'fake',
      namespace: 'fake',
      url: fake.url,
      auth: { kind: 'header', provider: 'fakeapi', header: 'X-Api-Key' },
    });
    const alice = await mcp.user({ admin: true });
    const client = await connectV2(mcp.url, alice.mcpToken);
    const result = await client.callTool({ name: 'fake.guarded', arguments: {} });
    expect(result.isError).toBe(true);
    const text = JSON.stringify(result.content);
    expect(text).toContain('refused the credential (HTTP 401)');
    expect(text).toContain('gateway connect fakeapi');
    expect(fake.calls.at(-1)?.authorization).toBeUndefined();
  });

  it('asks the caller to connect when no credential exists for them', async () => {
    const fake = await startFakeUpstream([{ name: 'whoami', behaviour: { kind: 'answer' } }]);
    const mcp = await startMcpGateway({ env: ALLOW_PRIVATE });
    const admin = await mcp.user({ admin: true });
    await addConnection(mcp.gateway, { userId: admin.id, toolId: 'fakeapi', secret: 'admin-key' });
    // Registered by the admin: the list is fetched with the admin's own credential.
    const registered = await mcp.gateway.request('POST', '/api/registry/sources', {
      as: admin,
      body: {
        type: 'mcp',
        approval: 'listed',
        id: 'fake',
        namespace: 'fake',
        url: fake.url,
        auth: { kind: 'header', provider: 'fakeapi', header: 'Authorization', scheme: 'Bearer' },
      },
    });
    expect(registered.status).toBe(201);
    const carol = await mcp.user({ admin: true });
    const client = await connectV2(mcp.url, carol.mcpToken);
    const result = await client.callTool({ name: 'fake.whoami', arguments: {} });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('fakeapi');
    expect(fake.calls.map((call) => call.authorization)).toEqual([]);
  });

  // Issue 31: the scheduled refresh of a header source used no user's credential, so with only
  // the registering admin's own connection it logged "no credential" every time.
  it("refreshes the tool list with the registering admin's own credential", async () => {
    const fake = await startFakeUpstream([{ name: 'whoami', behaviour: { kind: 'answer' } }]);
    const mcp = await startMcpGateway({ env: ALLOW_PRIVATE });
    const admin = await mcp.user({ admin: true });
    await addConnection(mcp.gateway, { userId: admin.id, toolId: 'fakeapi', secret: 'admin-key' });
    const registered = await mcp.gateway.request('POST', '/api/registry/sources', {
      as: admin,
      body: {
        type: 'mcp',
        approval: 'listed',
        id: 'fake',
        namespace: 'fake',
        url: fake.url,
        auth: { kind: 'header', provider: 'fakeapi', header: 'Authorization', scheme: 'Bearer' },
      },
    });
    expect(registered.status).toBe(201);
    // The registering admin's id is stored with the source (every instance lists with it), and
    // not shown by the API.
    const row = await mcp.gateway.services.database.db
      .selectFrom('registry_sources')
      .select('upstream')
      .where('id', '=', 'fake')
      .executeTakeFirstOrThrow();
    expect(JSON.parse(row.upstream ?? '{}')).toMatchObject({ listedBy: admin.id });
    const listed = await mcp.gateway.request('GET', '/api/registry/sources', { as: admin });
    expect(JSON.stringify(await listed.json())).not.toContain(admin.id);

    fake.setTools([
      { name: 'whoami', behaviour: { kind: 'answer' } },
      { name: 'second', behaviour: { kind: 'answer' } },
    ]);
    await mcp.gateway.services.upstreams.refresh('fake');
    const client = await connectV2(mcp.url, admin.mcpToken);
    const served = async () =>
      (await client.listTools()).tools
        .map((tool) => tool.name)
        .filter((n) => n.startsWith('fake.'));
    expect(await served()).toEqual(['fake.second', 'fake.whoami']);
    expect(mcp.gateway.logs()).not.toContain('no credential');
    const result = await client.callTool({ name: 'fake.second', arguments: {} });
    expect(JSON.stringify(result.content)).toContain(digest('Bearer admin-key'));
    expect(fake.calls.map((call) => call.authorization)).toEqual(['Bearer admin-key']);
  });
});

describe('approvals, service accounts and records', () => {
  // Issue 31: annotations pass through exactly; `hints` asks by MCP's defaults, and a tool the
  // operator listed asks whatever its upstream claims.
  it('serves annotations as the upstream sent them and asks by hints, listed names first', async () => {
    const fake = await startFakeUpstream([
      { name: 'wipe', behaviour: { kind: 'answer' }, annotations: { destructiveHint: true } },
      { name: 'send', behaviour: { kind: 'answer' } },
      {
        name: 'read',
        behaviour: { kind: 'answer' },
        annotations: { title: 'Read It', readOnlyHint: true, openWorldHint: false },
      },
      {
        name: 'add',
        behaviour: { kind: 'answer' },
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
      },
      // A hostile upstream says read-only about a tool the operator wants asked about.
      { name: 'liar', behaviour: { kind: 'answer' }, annotations: { readOnlyHint: true } },
    ]);
    const mcp = await startMcpGateway({ env: ALLOW_PRIVATE });
    await registerSource(mcp.url, {
      type: 'mcp',
      id: 'fake',
      namespace: 'fake',
      url: fake.url,
      approval: 'hints',
      approvalRequired: ['liar'],
    });
    const alice = await mcp.user({ admin: true });
    const client = await connectV2(mcp.url, alice.mcpToken, { elicitation: true });
    const { tools } = await client.listTools();
    const served = Object.fromEntries(
      tools
        .filter((tool) => tool.name.startsWith('fake.'))
        .map((tool) => [tool.name, tool.annotations ?? null]),
    );
    expect(served).toEqual({
      'fake.add': { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
      'fake.liar': { readOnlyHint: true },
      'fake.read': { title: 'Read It', readOnlyHint: true, openWorldHint: false },
      'fake.send': null,
      'fake.wipe': { destructiveHint: true },
    });

    let answer: 'accept' | 'decline' = 'decline';
    const asked: string[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params.message);
      return answer === 'accept'
        ? { action: 'accept', content: { approve: true } }
        : { action: 'decline' };
    });
    const declined = await client.callTool({ name: 'fake.wipe', arguments: { all: true } });
    expect(declined.isError).toBe(true);
    const lied = await client.callTool({ name: 'fake.liar', arguments: {} });
    expect(lied.isError).toBe(true);
    expect(fake.calls).toEqual([]);

    answer = 'accept';
    const approved = await client.callTool({ name: 'fake.send', arguments: { to: 'x' } });
    expect(approved.isError).toBeFalsy();
    expect(fake.calls.map((call) => [call.name, call.arguments])).toEqual([['send', { to: 'x' }]]);
    expect((await client.callTool({ name: 'fake.read', arguments: {} })).isError).toBeFalsy();
    expect((await client.callTool({ name: 'fake.add', arguments: {} })).isError).toBeFalsy();
    expect(asked).toHaveLength(3);
    expect(asked[0]).toContain('fake.wipe');
    expect(asked[1]).toContain('fake.liar');

    const rows = await mcp.gateway.services.database.db
      .selectFrom('executions')
      .select(['tool_path', 'outcome', 'approval', 'approved_by'])
      .orderBy('started_at')
      .execute();
    expect(rows).toEqual([
      { tool_path: 'fake.wipe', outcome: 'denied', approval: 'declined', approved_by: alice.id },
      { tool_path: 'fake.liar', outcome: 'denied', approval: 'declined', approved_by: alice.id },
      { tool_path: 'fake.send', outcome: 'ok', approval: 'approved', approved_by: alice.id },
      { tool_path: 'fake.read', outcome: 'ok', approval: null, approved_by: null },
      { tool_path: 'fake.add', outcome: 'ok', approval: null, approved_by: null },
    ]);

    // `all` asks for every tool; `listed` only for the names, whatever the hints say.
    const asks = async () => {
      asked.length = 0;
      for (const name of ['fake.read', 'fake.wipe', 'fake.liar'])
        await client.callTool({ name, arguments: {} });
      return asked.map((message) => /fake\.[a-z]+/.exec(message)?.[0]);
    };
    const patch = (approval: string) =>
      mcp.gateway.request('PATCH', '/api/registry/sources/fake', {
        as: 'service',
        body: { approval },
      });
    expect((await patch('all')).status).toBe(200);
    expect(await asks()).toEqual(['fake.read', 'fake.wipe', 'fake.liar']);
    const listed = await patch('listed');
    expect(
      ((await listed.json()) as { source: { upstream: { approval: string } } }).source.upstream
        .approval,
    ).toBe('listed');
    expect(await asks()).toEqual(['fake.liar']);
    expect((await patch('some')).status).toBe(400);
  });

  it('serves service accounts only the sources that allow them', async () => {
    const fake = await startFakeUpstream([{ name: 'ping', behaviour: { kind: 'answer' } }]);
    const mcp = await startMcpGateway({ env: ALLOW_PRIVATE });
    await registerSource(mcp.url, {
      type: 'mcp',
      id: 'closed',
      namespace: 'closed',
      url: fake.url,
    });
    await registerSource(mcp.url, {
      type: 'mcp',
      id: 'open',
      namespace: 'open',
      url: fake.url,
      serviceAccountAllowed: true,
    });
    const admin = await mcp.user({ admin: true });
    const account = await mcp.serviceAccount(admin);
    const { client } = await connectV1(mcp.url, account.key);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('open.ping');
    expect(names).not.toContain('closed.ping');
    const result = await client.callTool({ name: 'open.ping', arguments: {} });
    expect(result.isError).toBeFalsy();
    await expect(client.callTool({ name: 'closed.ping', arguments: {} })).rejects.toThrow(
      /not found/,
    );
  });

  it('fetches the tool list again on schedule; tools/list never waits for the upstream', async () => {
    const fake = await startFakeUpstream([{ name: 'one', behaviour: { kind: 'answer' } }]);
    const mcp = await startMcpGateway({
      env: { ...ALLOW_PRIVATE, GATEWAY_UPSTREAM_REFRESH_SECONDS: '0.3' },
    });
    await registerSource(mcp.url, { type: 'mcp', id: 'fake', namespace: 'fake', url: fake.url });
    const alice = await mcp.user({ admin: true });
    const client = await connectV2(mcp.url, alice.mcpToken);
    const fakeTools = async () =>
      (await client.listTools()).tools
        .map((tool) => tool.name)
        .filter((name) => name.startsWith('fake.'));
    expect(await fakeTools()).toEqual(['fake.one']);
    fake.setTools([
      { name: 'one', behaviour: { kind: 'answer' } },
      { name: 'Two Words', behaviour: { kind: 'answer' } },
    ]);
    await expect.poll(fakeTools, { timeout: 5000 }).toEqual(['fake.one', 'fake.two_words']);
    const stored = await mcp.gateway.services.database.db
      .selectFrom('upstream_tools')
      .select('tools')
      .executeTakeFirstOrThrow();
    expect(stored.tools).toContain('Two Words');
    const called = await client.callTool({ name: 'fake.two_words', arguments: {} });
    expect(fake.calls.at(-1)?.name).toBe('Two Words');
    expect(called.isError).toBeFalsy();
  });
});
