/**
 * Issue 16: the gateway speaks the 2026-07-28 revision to an upstream that offers it (asked with
 * `server/discover`), statelessly, and the 2025-11-25 revision to one that does not; progress,
 * log lines, form questions and sampling reach the calling user's client either way.
 */
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { LOG_LEVEL_META_KEY } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { ManualCallTimer } from '#test/mcp/manual-call-timer.js';
import { connectV1, connectV2, recordsOf, startMcpGateway } from '#test/mcp/mcp-test-kit.js';
import { rememberSecret } from '#test/support/known-secrets.js';
import { TEST_SERVICE_SECRET } from '#test/support/test-gateway.js';
import { addConnection } from '#test/upstream/connections.js';
import { startFakeUpstream } from '#test/upstream/fake-upstream.js';
import { startModernUpstream } from '#test/upstream/modern-upstream.js';
import { registerSource } from '#test/upstream/register-source.js';

const ALLOW_PRIVATE = { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true' };
/**
 * How long a poll waits for what happens across the gateway and the upstream. It costs nothing
 * when things go well; on a loaded machine a hop took over the 1 s of expect.poll's default (and
 * the 3 s and 5 s this file had), failing the file under load (issue 35).
 */
const LOADED = 15_000;

async function register(
  gatewayUrl: string,
  id: string,
  url: string,
  auth?: Record<string, unknown>,
): Promise<number> {
  const answer = await registerSource(gatewayUrl, {
    type: 'mcp',
    id,
    namespace: id,
    url,
    ...(auth === undefined ? {} : { auth }),
  });
  return answer.status;
}

describe('an upstream that offers 2026-07-28', () => {
  it('is listed and called in 2026-07-28, without a session, structured output included', async () => {
    const upstream = await startModernUpstream();
    const gw = await startMcpGateway({ env: ALLOW_PRIVATE });
    expect(await register(gw.url, 'mod', upstream.url)).toBe(201);
    const alice = await gw.user({ admin: true });
    const client = await connectV2(gw.url, alice.mcpToken);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['mod.echo', 'mod.chatty', 'mod.form']));

    const echoed = await client.callTool({ name: 'mod.echo', arguments: { text: 'hi' } });
    expect(echoed.isError).toBeFalsy();
    expect(echoed.content).toEqual([{ type: 'text', text: 'echo: hi' }]);
    expect(echoed.structuredContent).toEqual({ text: 'hi', length: 2 });

    const methods = upstream.received.map((request) => request.method);
    expect(methods[0]).toBe('server/discover');
    expect(methods).toContain('tools/list');
    expect(methods).not.toContain('initialize');
    for (const request of upstream.received) {
      expect(request.envelopeVersion).toBe('2026-07-28');
      expect(request.headers.protocolVersion).toBe('2026-07-28');
      expect(request.headers.mcpMethod).toBe(request.method);
      expect(request.headers.sessionId).toBeUndefined();
    }
    const call = upstream.received.find((request) => request.method === 'tools/call');
    expect(call?.headers.mcpName).toBe('echo');
  });

  it('sends a plain call past the SDK client, with the envelope and headers the client sends (issue 37)', async () => {
    const upstream = await startModernUpstream();
    const gw = await startMcpGateway({ env: ALLOW_PRIVATE });
    expect(await register(gw.url, 'mod', upstream.url)).toBe(201);
    const alice = await gw.user({ admin: true });
    const client = await connectV2(gw.url, alice.mcpToken);
    for (const text of ['one', 'two']) {
      const echoed = await client.callTool({ name: 'mod.echo', arguments: { text } });
      expect(echoed.content).toEqual([{ type: 'text', text: `echo: ${text}` }]);
      expect(echoed.structuredContent).toEqual({ text, length: text.length });
    }
    const listed = upstream.received.find((request) => request.method === 'tools/list');
    const calls = upstream.received.filter((request) => request.method === 'tools/call');
    expect(calls).toHaveLength(2);
    for (const call of calls) {
      // Ids of the gateway's own, not the SDK client's numbers: the client was not used.
      expect(call.id).toMatch(/^gw-\d+$/);
      // The same envelope the SDK client put on its own request, and the same headers.
      expect(call.meta).toEqual(listed?.meta);
      expect(call.headers).toMatchObject({
        protocolVersion: '2026-07-28',
        mcpMethod: 'tools/call',
        mcpName: 'echo',
      });
      expect(call.arguments).toEqual({ text: expect.any(String) });
    }
    expect(new Set(calls.map((call) => call.id)).size).toBe(2);
  });

  it('mirrors an argument the tool declares as a header (SEP-2243), which the upstream requires', async () => {
    const upstream = await startModernUpstream();
    const gw = await startMcpGateway({ env: ALLOW_PRIVATE });
    expect(await register(gw.url, 'mod', upstream.url)).toBe(201);
    const alice = await gw.user({ admin: true });
    const client = await connectV2(gw.url, alice.mcpToken);

    const routed = await client.callTool({ name: 'mod.routed', arguments: { region: 'eu-west' } });
    expect(routed.isError).toBeFalsy();
    expect(routed.content).toEqual([{ type: 'text', text: 'served in eu-west' }]);
    const call = upstream.received.find((request) => request.method === 'tools/call');
    expect(call?.headers.paramRegion).toBe('eu-west');

    // Tools that declare none are called as before, without such headers.
    await client.callTool({ name: 'mod.echo', arguments: { text: 'hi' } });
    const echo = upstream.received.filter((request) => request.method === 'tools/call').at(-1);
    expect(echo?.headers.paramRegion).toBeUndefined();
  });

  it("relays progress, and each call's log lines to that call's client only", async () => {
    const upstream = await startModernUpstream();
    const gw = await startMcpGateway({ env: ALLOW_PRIVATE });
    expect(await register(gw.url, 'mod', upstream.url)).toBe(201);
    const alice = await gw.user({ admin: true });
    const listen = async () => {
      const { client } = await connectV1(gw.url, alice.mcpToken);
      const lines: string[] = [];
      client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
        lines.push(String(notification.params.data));
      });
      await client.setLoggingLevel('debug');
      return { client, lines };
    };
    const a = await listen();
    const b = await listen();
    const progressOf = { a: [] as string[], b: [] as string[] };
    const run = (tag: 'a' | 'b', client: typeof a.client) =>
      client.callTool(
        { name: 'mod.chatty', arguments: { tag, lines: 4, pauseMs: 15 } },
        undefined,
        { onprogress: (progress) => progressOf[tag].push(progress.message ?? '') },
      );
    // Both at once, on one upstream client: each call's stream carries only its own lines.
    const [doneA, doneB] = await Promise.all([run('a', a.client), run('b', b.client)]);
    expect(doneA.content).toEqual([{ type: 'text', text: 'a done' }]);
    expect(doneB.content).toEqual([{ type: 'text', text: 'b done' }]);
    expect(a.lines).toEqual(['a line 1', 'a line 2', 'a line 3', 'a line 4']);
    expect(b.lines).toEqual(['b line 1', 'b line 2', 'b line 3', 'b line 4']);
    expect(progressOf.a).toEqual(['a 1', 'a 2', 'a 3', 'a 4']);
    expect(progressOf.b).toEqual(['b 1', 'b 2', 'b 3', 'b 4']);
    expect(upstream.received.every((request) => request.method !== 'initialize')).toBe(true);
  });

  it('asks the upstream for the log lines and progress its caller asked for, and no more', async () => {
    const upstream = await startModernUpstream();
    const gw = await startMcpGateway({ env: ALLOW_PRIVATE });
    expect(await register(gw.url, 'mod', upstream.url)).toBe(201);
    const alice = await gw.user({ admin: true });
    const lastCallMeta = () =>
      upstream.received.filter((request) => request.method === 'tools/call').at(-1)?.meta;
    const modern = await connectV2(gw.url, alice.mcpToken);
    const echo = { name: 'mod.echo', arguments: { text: 'hi' } };

    // A plain call: the client would hear no log line and no progress, so none is asked for.
    await modern.callTool(echo);
    expect(lastCallMeta()).not.toHaveProperty([LOG_LEVEL_META_KEY]);
    expect(lastCallMeta()).not.toHaveProperty('progressToken');

    // A 2026-07-28 call that asks for warnings and progress: the upstream is asked the same.
    await modern.callTool(
      { ...echo, _meta: { [LOG_LEVEL_META_KEY]: 'warning' } },
      { onprogress: () => {} },
    );
    expect(lastCallMeta()?.[LOG_LEVEL_META_KEY]).toBe('warning');
    expect(lastCallMeta()?.progressToken).toBeDefined();

    // A 2025 session's level (`logging/setLevel`) is the one asked for.
    const { client: onSession } = await connectV1(gw.url, alice.mcpToken);
    await onSession.callTool(echo);
    expect(lastCallMeta()).not.toHaveProperty([LOG_LEVEL_META_KEY]);
    await onSession.setLoggingLevel('info');
    await onSession.callTool(echo);
    expect(lastCallMeta()?.[LOG_LEVEL_META_KEY]).toBe('info');
  });

  it("relays its form questions and sampling (input_required) to the calling user's client", async () => {
    const upstream = await startModernUpstream();
    const gw = await startMcpGateway({ env: ALLOW_PRIVATE });
    expect(await register(gw.url, 'mod', upstream.url)).toBe(201);
    const alice = await gw.user({ admin: true });

    // A 2025 client on a session: asked at once while the call waits.
    const { client: onSession } = await connectV1(gw.url, alice.mcpToken, {
      elicitation: true,
      sampling: true,
    });
    const asked: string[] = [];
    const { ElicitRequestSchema, CreateMessageRequestSchema } = await import(
      '@modelcontextprotocol/sdk/types.js'
    );
    onSession.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { name: 'Ada' } };
    });
    onSession.setRequestHandler(CreateMessageRequestSchema, async () => ({
      role: 'assistant',
      content: { type: 'text', text: '42' },
      model: 'test-model',
    }));
    const named = await onSession.callTool({ name: 'mod.form', arguments: {} });
    expect(named.content).toEqual([{ type: 'text', text: 'hello Ada' }]);
    // The upstream sees each round once: the question, then the call with its answer.
    const formRounds = upstream.received
      .filter((request) => request.method === 'tools/call' && request.headers.mcpName === 'form')
      .map((request) => request.answered);
    expect(formRounds).toEqual([false, true]);
    expect(asked).toEqual(['Upstream source mod, tool mod.form, asks: What is your name?']);
    const sampled = await onSession.callTool({ name: 'mod.sample', arguments: { prompt: 'q?' } });
    expect(sampled.content).toEqual([{ type: 'text', text: 'model said: 42' }]);

    // A 2026-07-28 client: the gateway's call ends with input_required and runs again.
    const modern = await connectV2(gw.url, alice.mcpToken, { elicitation: true, sampling: true });
    modern.setRequestHandler('elicitation/create', async () => ({
      action: 'accept',
      content: { name: 'Grace' },
    }));
    modern.setRequestHandler('sampling/createMessage', async () => ({
      role: 'assistant',
      content: { type: 'text', text: 'modern 42' },
      model: 'test-model',
    }));
    const again = await modern.callTool({ name: 'mod.form', arguments: {} });
    expect(again.content).toEqual([{ type: 'text', text: 'hello Grace' }]);
    const sampledAgain = await modern.callTool({ name: 'mod.sample', arguments: { prompt: 'q' } });
    expect(sampledAgain.content).toEqual([{ type: 'text', text: 'model said: modern 42' }]);

    const rows = await recordsOf(gw, 'mod.form');
    expect(rows.map((row) => [row.outcome, row.approval])).toEqual([
      ['ok', 'approved'],
      ['ok', 'approved'],
    ]);
  });

  it('relays its links (URL mode, input_required) to clients that take them, and declines for others', async () => {
    const upstream = await startModernUpstream();
    const gw = await startMcpGateway({ env: ALLOW_PRIVATE });
    expect(await register(gw.url, 'mod', upstream.url)).toBe(201);
    const alice = await gw.user({ admin: true });
    const { ElicitRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');

    const { client: onSession } = await connectV1(gw.url, alice.mcpToken, { elicitation: 'url' });
    const asked: unknown[] = [];
    onSession.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      return { action: 'accept' };
    });
    const opened = await onSession.callTool({ name: 'mod.link', arguments: {} });
    expect(opened.content).toEqual([{ type: 'text', text: 'link accept' }]);
    expect(asked).toEqual([
      {
        mode: 'url',
        message:
          'Upstream source mod, tool mod.link, asks you to open a page at https://bank.example.com: Connect your bank',
        url: 'https://bank.example.com/connect?session=1',
        // 2026-07-28 input requests carry none; the 2025 client gets one made for it.
        elicitationId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      },
    ]);

    const modern = await connectV2(gw.url, alice.mcpToken, { elicitation: 'url' });
    modern.setRequestHandler('elicitation/create', async () => ({ action: 'cancel' }));
    const cancelled = await modern.callTool({ name: 'mod.link', arguments: {} });
    expect(cancelled.content).toEqual([{ type: 'text', text: 'link cancel' }]);

    // A client that takes forms but no links is not sent one: the approvals list has it.
    const { client: formsOnly } = await connectV1(gw.url, alice.mcpToken, { elicitation: true });
    formsOnly.setRequestHandler(ElicitRequestSchema, async () => {
      throw new Error('a form-only client was sent a link');
    });
    const waiting = formsOnly.callTool({ name: 'mod.link', arguments: {} });
    const pending = async () => {
      const listed = await gw.gateway.request('GET', `/api/approvals?userId=${alice.id}`, {
        as: alice,
      });
      return ((await listed.json()) as { approvals: { id: string }[] }).approvals[0]?.id;
    };
    await expect.poll(pending, { timeout: LOADED }).toBeDefined();
    const pendingId = await pending();
    await gw.gateway.request('POST', `/api/approvals/${pendingId}`, {
      as: alice,
      body: { decision: 'deny' },
    });
    expect((await waiting).content).toEqual([{ type: 'text', text: 'link decline' }]);
  });

  it('ends a call whose upstream keeps asking after ten rounds', async () => {
    const upstream = await startModernUpstream();
    const gw = await startMcpGateway({ env: ALLOW_PRIVATE });
    expect(await register(gw.url, 'mod', upstream.url)).toBe(201);
    const alice = await gw.user({ admin: true });
    const { client } = await connectV1(gw.url, alice.mcpToken, { elicitation: true });
    const { ElicitRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
    let asked = 0;
    client.setRequestHandler(ElicitRequestSchema, async () => {
      asked++;
      return { action: 'accept', content: { ok: true } };
    });
    const result = await client.callTool({ name: 'mod.nag', arguments: {} });
    expect(result.isError).toBe(true);
    // The gateway's own limit on questions in one call (the first round's question is answered
    // before the SDK client's rounds begin, so that limit ends it before the client's own).
    expect(JSON.stringify(result.content)).toContain(
      'mod.nag kept asking questions (more than 10 in one call), so it was stopped',
    );
    expect(asked).toBeLessThanOrEqual(11);
  });

  it('closes the request stream of a call that reaches the time limit', async () => {
    const upstream = await startModernUpstream();
    // The limit is the test's: it expires once the upstream runs the call, without waiting 0.5 s.
    const timer = new ManualCallTimer();
    const gw = await startMcpGateway({
      env: { ...ALLOW_PRIVATE, GATEWAY_TOOL_TIMEOUT_SECONDS: '0.5' },
      internals: { callTimer: timer },
    });
    expect(await register(gw.url, 'mod', upstream.url)).toBe(201);
    const alice = await gw.user({ admin: true });
    const client = await connectV2(gw.url, alice.mcpToken);
    const call = client.callTool({ name: 'mod.slow', arguments: {} });
    await expect.poll(() => upstream.started, { timeout: LOADED }).toBe(1);
    expect(timer.armed).toEqual([500]);
    timer.expireAll();
    const result = await call;
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('did not finish within 0.5 s');
    await expect.poll(() => upstream.stopped, { timeout: LOADED }).toBe(1);
  });

  it('ends a call in flight when its source is removed, closing its request stream', async () => {
    const upstream = await startModernUpstream();
    const gw = await startMcpGateway({ env: ALLOW_PRIVATE });
    expect(await register(gw.url, 'mod', upstream.url)).toBe(201);
    const alice = await gw.user({ admin: true });
    const client = await connectV2(gw.url, alice.mcpToken);
    const calling = client.callTool({ name: 'mod.slow', arguments: {} });
    await expect
      .poll(() => upstream.received.filter((request) => request.method === 'tools/call').length, {
        timeout: LOADED,
      })
      .toBe(1);
    const removed = await fetch(`${gw.url}/api/registry/sources/mod`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${TEST_SERVICE_SECRET}` },
    });
    expect(removed.status).toBe(200);
    const result = await calling;
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([
      {
        type: 'text',
        text: 'Source "mod" was removed from the gateway; its tools are no longer served.',
      },
    ]);
    await expect.poll(() => upstream.stopped, { timeout: LOADED }).toBe(1);
  });

  it('has its tool list fetched again when it says the list changed (subscriptions/listen)', async () => {
    const upstream = await startModernUpstream();
    const gw = await startMcpGateway({ env: ALLOW_PRIVATE });
    expect(await register(gw.url, 'mod', upstream.url)).toBe(201);
    await expect.poll(() => upstream.listening, { timeout: LOADED }).toBe(1);
    const alice = await gw.user({ admin: true });
    const client = await connectV2(gw.url, alice.mcpToken);
    upstream.addTool('later');
    const names = async () => (await client.listTools()).tools.map((tool) => tool.name);
    await expect.poll(names, { timeout: LOADED }).toContain('mod.later');
    const ran = await client.callTool({ name: 'mod.later', arguments: {} });
    expect(ran.content).toEqual([{ type: 'text', text: 'later ran' }]);
  });
});

describe('a 2026-07-28 upstream behind a credential', () => {
  it("sends each caller's own credential on their requests only, and a 401 says to reconnect", async () => {
    const upstream = await startModernUpstream({ refuse: 'Bearer revoked-key' });
    rememberSecret('server-mod-key');
    const gw = await startMcpGateway({
      env: { ...ALLOW_PRIVATE, MODAPI_API_KEY: 'server-mod-key' },
    });
    const auth = { kind: 'header', provider: 'modapi', header: 'Authorization', scheme: 'Bearer' };
    expect(await register(gw.url, 'mod', upstream.url, auth)).toBe(201);
    const alice = await gw.user({ admin: true });
    const carol = await gw.user({ admin: true });
    const bob = await gw.user({ admin: true });
    const keys = { alice: 'alice-key', carol: 'carol-key', bob: 'revoked-key' };
    for (const [user, secret] of [
      [alice, keys.alice],
      [carol, keys.carol],
      [bob, keys.bob],
    ] as const) {
      await addConnection(gw.gateway, { userId: user.id, toolId: 'modapi', secret });
    }
    const onAlice = await connectV2(gw.url, alice.mcpToken);
    const onCarol = await connectV2(gw.url, carol.mcpToken);
    const echo = (client: typeof onAlice, text: string) =>
      client.callTool({ name: 'mod.echo', arguments: { text } });
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        i % 2 === 0 ? echo(onAlice, 'alice') : echo(onCarol, 'carol'),
      ),
    );
    expect(results.every((result) => result.isError !== true)).toBe(true);
    const calls = upstream.received.filter((request) => request.method === 'tools/call');
    expect(calls).toHaveLength(8);
    for (const call of calls) {
      const who = (call.arguments as { text: 'alice' | 'carol' }).text;
      expect(call.headers.authorization).toBe(`Bearer ${keys[who]}`);
      expect(call.headers.protocolVersion).toBe('2026-07-28');
    }
    // Registered by the service secret: listed (and asked its revision) with the server key.
    expect(upstream.received[0]?.method).toBe('server/discover');
    expect(upstream.received[0]?.headers.authorization).toBe('Bearer server-mod-key');

    const onBob = await connectV2(gw.url, bob.mcpToken);
    const refused = await echo(onBob, 'bob');
    expect(refused.isError).toBe(true);
    const text = JSON.stringify(refused.content);
    expect(text).toContain('refused the credential (HTTP 401)');
    expect(text).toContain('gateway connect modapi');
  });
});

describe('an upstream that speaks 2025 only', () => {
  it('gets the initialize handshake and a session, and its tools still work', async () => {
    const fake = await startFakeUpstream([{ name: 'ping', behaviour: { kind: 'answer' } }]);
    const gw = await startMcpGateway({ env: ALLOW_PRIVATE });
    expect(await register(gw.url, 'old', fake.url)).toBe(201);
    const alice = await gw.user({ admin: true });
    const client = await connectV2(gw.url, alice.mcpToken);
    const result = await client.callTool({ name: 'old.ping', arguments: {} });
    expect(result.isError).toBeFalsy();
    const methods = fake.requests.map((request) => request.method);
    // Asked once; refused (the fake answers what it does not know with an empty result).
    expect(methods.slice(0, 2)).toEqual(['server/discover', 'initialize']);
    expect(methods.filter((method) => method === 'server/discover')).toHaveLength(1);
    const call = fake.requests.find((request) => request.method === 'tools/call');
    expect(call?.protocolVersion).toBe('2025-11-25');
  });
});

describe('an upstream that claims 2026-07-28 and then answers garbage', () => {
  it('ends the call as a clear isError result, never a hang or a 5xx', async () => {
    const fake = await startFakeUpstream(
      [
        { name: 'garbage', behaviour: { kind: 'garbage' } },
        { name: 'sse', behaviour: { kind: 'sse-garbage' } },
        { name: 'cut', behaviour: { kind: 'sse-cut' } },
      ],
      { claims2026: true },
    );
    const gw = await startMcpGateway({ env: ALLOW_PRIVATE });
    expect(await register(gw.url, 'liar', fake.url)).toBe(201);
    const alice = await gw.user({ admin: true });
    const client = await connectV2(gw.url, alice.mcpToken);
    for (const name of ['liar.garbage', 'liar.sse', 'liar.cut']) {
      const started = Date.now();
      const result = await client.callTool({ name, arguments: {} });
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toContain('answered something that is not MCP');
      expect(Date.now() - started).toBeLessThan(5000);
    }
    expect(fake.requests.some((request) => request.method === 'initialize')).toBe(false);
    expect(fake.requests.find((r) => r.method === 'tools/call')?.protocolVersion).toBe(
      '2026-07-28',
    );
  });
});
