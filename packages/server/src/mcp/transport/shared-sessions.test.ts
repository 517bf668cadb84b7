import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { createPostgresTestDatabase, postgresTestUrl } from '#test/db/test-database.js';
import { emptyFixtureState } from '#test/mcp/fixture-plugin.js';
import { createInteractionPlugin } from '#test/mcp/interaction-plugin.js';
import { type McpTestGateway, type McpTestUser, startMcpGateway } from '#test/mcp/mcp-test-kit.js';
import { TEST_SERVICE_SECRET } from '#test/support/test-gateway.js';
import type { McpOptions } from '../options.js';
import type { SweepTimer } from './sessions/index.js';
import { sessionDb } from './shared-sessions/tables.js';

// Issue 17 item 1: a 2025 session opened on one instance is served by every instance on
// PostgreSQL, with no affinity. Here each request of a client goes to the next instance in turn.

const pgUrl = postgresTestUrl();
/** A call deleting the file `name` (each test its own: the fixture's files are shared). */
const deleteCall = (name: string) => ({ name: 'demo.files.delete', arguments: { name } });

let trio: Promise<McpTestGateway[]> | undefined;
const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const stop of stops.splice(0)) await stop();
});

/** Stops what the tests of this file share, when the file ends. */
const stopLater = (stop: () => Promise<void>): void => {
  stops.unshift(stop);
};

/**
 * The first `count` of three instances on one database (with the interaction plugin, and at
 * most two sessions per user), which most tests share: started by the first that asks, stopped
 * when the file ends. Each test makes its own users, roles and sessions, and deletes files of
 * its own names.
 */
async function instances(count: number): Promise<McpTestGateway[]> {
  trio ??= (async () => {
    const scoped = await createPostgresTestDatabase(pgUrl as string);
    stopLater(scoped.drop);
    const state = emptyFixtureState();
    const plugins = [createInteractionPlugin()];
    const mcp = { maxSessionsPerUser: 2 };
    const started: McpTestGateway[] = [];
    for (let i = 0; i < 3; i += 1) {
      started.push(
        await startMcpGateway({ databaseUrl: scoped.url, state, plugins, mcp, stopLater }),
      );
    }
    return started;
  })();
  return (await trio).slice(0, count);
}

/**
 * A fetch sending each request to the next of `urls`, as a round-robin balancer does; `listening`
 * is told when the answer to the client's GET (its stream for what the server sends unasked)
 * has come: the instance counts the stream as listening before it answers.
 */
function roundRobin(urls: string[], sent: string[] = [], listening = () => {}): typeof fetch {
  let next = 0;
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const target = new URL(urls[next % urls.length] as string);
    next += 1;
    url.host = target.host;
    sent.push(url.origin);
    const response = await fetch(url, init);
    if (init?.method === 'GET' && response.ok) listening();
    return response;
  };
}

async function connect(
  urls: string[],
  user: McpTestUser,
  options: { elicitation?: boolean; sampling?: boolean; sent?: string[] } = {},
) {
  const client = new V1Client(
    { name: 'rr-test', version: '1.0.0' },
    {
      capabilities: {
        ...(options.elicitation ? { elicitation: {} } : {}),
        ...(options.sampling ? { sampling: {} } : {}),
      },
    },
  );
  let heard = () => {};
  const listening = new Promise<void>((resolve) => {
    heard = resolve;
  });
  const transport = new V1Transport(new URL(`${urls[0]}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${user.mcpToken}` } },
    fetch: roundRobin(urls, options.sent, () => heard()),
  });
  await client.connect(transport);
  onTestFinished(() => client.close());
  /** Resolves once the client's GET stream is open: what the instance sends unasked reaches it. */
  return { client, transport, listening };
}

function post(url: string, token: string, sessionId: string, body: unknown) {
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify(body),
  });
}

describe.skipIf(!pgUrl)('2025 sessions on PostgreSQL: any instance serves any session', () => {
  it('lists and calls tools, and routes the elicitation answer to the instance that asked', async () => {
    const [a, b, c] = await instances(3);
    const urls = [a, b, c].map((gw) => (gw as McpTestGateway).url);
    const alice = await (a as McpTestGateway).user({ admin: true });
    const sent: string[] = [];
    const { client } = await connect(urls, alice, { elicitation: true, sent });
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { approve: true } };
    });
    for (let i = 0; i < 3; i += 1) {
      const listed = await client.listTools();
      expect(listed.tools.map((tool) => tool.name)).toContain('demo.echo.say');
      const echoed = await client.callTool({
        name: 'demo.echo.say',
        arguments: { text: `hi ${i}` },
      });
      expect(JSON.stringify(echoed.content)).toContain(`hi ${i}`);
    }
    const result = await client.callTool(deleteCall('report.pdf'));
    expect(result.isError).toBeFalsy();
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('Delete report.pdf?');
    const deleted = (a as McpTestGateway).state.deleted;
    expect(deleted.filter((name) => name === 'report.pdf')).toEqual(['report.pdf']);
    // Every instance served some of it.
    expect(new Set(sent)).toEqual(new Set(urls.map((url) => new URL(url).origin)));
  });

  it("routes a model's answer too large for a NOTIFY to the instance that asked", async () => {
    const [a, b] = (await instances(2)) as [McpTestGateway, McpTestGateway];
    const alice = await a.user({ admin: true });
    const { client } = await connect([a.url, b.url], alice, { sampling: true });
    const colour = 'b'.repeat(20_000);
    const fruit = 'f'.repeat(20_000);
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      const content = request.params.messages[0]?.content;
      const prompt = content !== undefined && 'text' in content ? String(content.text) : '';
      return {
        role: 'assistant',
        content: { type: 'text', text: prompt.startsWith('Name a calm colour') ? colour : fruit },
        model: 'test-model',
      };
    });
    // Round-robin: the answers alternate between the instances, so one reaches the other.
    const result = await client.callTool({ name: 'calls.texts.pair', arguments: { mood: 'calm' } });
    expect(result.structuredContent).toEqual({ colour, fruit, model: 'test-model' });
  });

  it('applies the log level a client asked for on one instance on every instance', async () => {
    const gws = await instances(3);
    const urls = gws.map((gw) => gw.url);
    const alice = await (gws[0] as McpTestGateway).user({ admin: true });
    const { client } = await connect(urls, alice);
    const messages: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      messages.push(n.params);
    });
    // Every instance holds a copy before the level is set.
    for (let i = 0; i < 3; i += 1) {
      await client.callTool({ name: 'demo.echo.say', arguments: { text: 'quiet' } });
    }
    expect(messages).toEqual([]);
    await client.setLoggingLevel('info');
    // At once: a copy about to run a call reads the stored level (its NOTIFY may be on its way).
    for (let i = 0; i < 3; i += 1) {
      await client.callTool({ name: 'demo.echo.say', arguments: { text: 'loud' } });
    }
    expect(messages).toHaveLength(3);
    expect(messages[0]).toEqual({
      level: 'info',
      logger: 'demo.echo.say',
      data: { message: 'echo', length: 4 },
    });
  });

  it("refuses another principal's session on another instance exactly as on its own", async () => {
    const [a, b] = await instances(2);
    const gwA = a as McpTestGateway;
    const gwB = b as McpTestGateway;
    const alice = await gwA.user();
    const mallory = await gwA.user();
    const { transport } = await connect([gwA.url], alice);
    const sessionId = transport.sessionId as string;
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    const same = await post(gwA.url, mallory.mcpToken, sessionId, ping);
    const other = await post(gwB.url, mallory.mcpToken, sessionId, ping);
    expect(same.status).toBe(404);
    expect(other.status).toBe(404);
    expect(await other.json()).toEqual(await same.json());
    // The owner is served on both.
    expect((await post(gwB.url, alice.mcpToken, sessionId, ping)).status).toBe(200);
    // An id nobody opened is as unknown.
    expect((await post(gwB.url, alice.mcpToken, crypto.randomUUID(), ping)).status).toBe(404);
  });

  it("never lets another user answer a question the gateway asked in someone's session", async () => {
    const [a, b] = await instances(2);
    const gwA = a as McpTestGateway;
    const gwB = b as McpTestGateway;
    const alice = await gwA.user({ admin: true });
    const mallory = await gwA.user({ admin: true });
    const aliceSession = await openSession(gwA.url, alice.mcpToken, { elicitation: {} });
    const malloryOnB = await openSession(gwB.url, mallory.mcpToken, { elicitation: {} });
    const call = await post(gwA.url, alice.mcpToken, aliceSession, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: deleteCall('secret-plans.pdf'),
    });
    // Read alice's stream up to the question.
    const reader = call.body?.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (reader !== undefined && !text.includes('elicitation/create')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    const question = /"id":"([^"]+)"/.exec(text.slice(text.indexOf('elicitation/create')));
    const questionId = question?.[1] ?? '';
    expect(questionId).toMatch(/^[\w-]+:\d+$/);
    const approve = {
      jsonrpc: '2.0',
      id: questionId,
      result: { action: 'accept', content: { approve: true } },
    };
    // Mallory answers it in her own session (on another instance), then names alice's session.
    expect((await post(gwB.url, mallory.mcpToken, malloryOnB, approve)).status).toBe(202);
    expect((await post(gwB.url, mallory.mcpToken, aliceSession, approve)).status).toBe(404);
    expect((await post(gwA.url, mallory.mcpToken, aliceSession, approve)).status).toBe(404);
    expect(gwA.state.deleted).not.toContain('secret-plans.pdf');
    // Alice's own answer, through the other instance, decides: it travels the bus after
    // mallory's, so the call ending declined shows that hers was never taken.
    const decline = { jsonrpc: '2.0', id: questionId, result: { action: 'decline' } };
    expect((await post(gwB.url, alice.mcpToken, aliceSession, decline)).status).toBe(202);
    while (reader !== undefined && !text.includes('"id":1')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    expect(text).toContain('"isError":true');
    expect(gwA.state.deleted).not.toContain('secret-plans.pdf');
  });

  it('closes a session on every instance when the client deletes it on one', async () => {
    const [a, b] = await instances(2);
    const gwA = a as McpTestGateway;
    const gwB = b as McpTestGateway;
    const alice = await gwA.user();
    const { transport } = await connect([gwA.url, gwB.url], alice);
    const sessionId = transport.sessionId as string;
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    // Held on both instances now.
    expect((await post(gwA.url, alice.mcpToken, sessionId, ping)).status).toBe(200);
    expect((await post(gwB.url, alice.mcpToken, sessionId, ping)).status).toBe(200);
    const deleted = await fetch(`${gwB.url}/mcp`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${alice.mcpToken}`, 'mcp-session-id': sessionId },
    });
    expect(deleted.status).toBe(200);
    expect((await post(gwA.url, alice.mcpToken, sessionId, ping)).status).toBe(404);
    expect((await post(gwB.url, alice.mcpToken, sessionId, ping)).status).toBe(404);
  });

  it('counts the sessions of a user across instances against the per-user cap', async () => {
    // The shared instances allow two sessions per user.
    const [a, b] = (await instances(2)) as [McpTestGateway, McpTestGateway];
    const alice = await a.user();
    const first = await connect([a.url], alice);
    await connect([b.url], alice);
    await connect([a.url], alice);
    // Three opened, two allowed: the least recently used (the first) is gone everywhere.
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    const firstId = first.transport.sessionId as string;
    expect((await post(b.url, alice.mcpToken, firstId, ping)).status).toBe(404);
    expect((await post(a.url, alice.mcpToken, firstId, ping)).status).toBe(404);
  });

  it('tells the client listening on another instance that its tools changed', async () => {
    const [a, b] = await instances(2);
    const gwA = a as McpTestGateway;
    const gwB = b as McpTestGateway;
    const admin = await gwA.user({ admin: true });
    const roleId = `narrow-${crypto.randomUUID().slice(0, 8)}`;
    await gwA.gateway.services.policy.createRole({
      id: roleId,
      name: 'Narrow',
      patterns: ['demo.echo.*'],
    });
    const bob = await gwA.user({ roleId });
    // Bob's client talks to B only: its GET stream is held there.
    const { client, listening } = await connect([gwB.url], bob);
    const changed = new Promise<void>((resolve) => {
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve());
    });
    await client.listTools();
    await listening;
    const edited = await gwA.gateway.request('PUT', `/api/policy/roles/${roleId}`, {
      as: admin,
      body: { id: roleId, name: 'Narrow', patterns: ['demo.**'] },
    });
    expect(edited.status).toBe(200);
    await changed;
    const listed = await client.listTools();
    expect(listed.tools.map((tool) => tool.name)).toContain('demo.files.delete');
  });
});

describe.skipIf(!pgUrl)('an endpoint changed on one instance (issue 33)', () => {
  it("tells that endpoint's session on another instance, and no other session, and narrows it there", async () => {
    const [a, b] = await instances(2);
    const gwA = a as McpTestGateway;
    const gwB = b as McpTestGateway;
    const alice = await gwA.user({ admin: true });
    const other = await gwA.user({ admin: true });
    const endpointOf = async (user: McpTestUser) => {
      const [row] = await gwA.gateway.services.database.db
        .selectFrom('mcp_endpoints')
        .select('id')
        .where('user_id', '=', user.id)
        .execute();
      return row?.id ?? '';
    };
    // Both clients talk to B only: their GET streams are held there.
    const { client, listening } = await connect([gwB.url], alice);
    const { client: untouched, listening: untouchedListening } = await connect([gwB.url], other);
    let heard = 0;
    let heardOther = 0;
    const changed = new Promise<void>((resolve) => {
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        heard += 1;
        resolve();
      });
    });
    let otherChanged = () => {};
    untouched.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      heardOther += 1;
      otherChanged();
    });
    expect((await client.listTools()).tools.length).toBeGreaterThan(1);
    await untouched.listTools();
    await Promise.all([listening, untouchedListening]);
    const patch = async (user: McpTestUser) => {
      const id = await endpointOf(user);
      const patched = await gwA.gateway.request('PATCH', `/api/connections/mcp-endpoints/${id}`, {
        as: user,
        body: { userId: user.id, tools: ['demo.echo.say'] },
      });
      expect(patched.status).toBe(200);
    };
    await patch(alice);
    await changed;
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['demo.echo.say']);
    // B tells the sessions a bus message concerns in one pass: had it told the other session,
    // that one would have heard with alice's, before the round trip just made.
    expect(heardOther).toBe(0);
    // A later message on the bus, for the other endpoint: heard after anything the first made B
    // send, and showing that the other client was listening all along.
    const heardLater = new Promise<void>((resolve) => {
      otherChanged = resolve;
    });
    await patch(other);
    await heardLater;
    expect(heard).toBe(1);
    expect(heardOther).toBe(1);
  });
});

describe.skipIf(!pgUrl)('2025 session streams and lifetimes across instances on PostgreSQL', () => {
  /**
   * Two instances whose idle sweeps run when the test says (`sweep`), never on their own;
   * stopped when the test ends, or handed to `stop`.
   */
  async function pair(mcp: McpOptions, stop: typeof stopLater = onTestFinished) {
    const scoped = await createPostgresTestDatabase(pgUrl as string);
    stop(scoped.drop);
    const plugins = [createInteractionPlugin()];
    const sweeps = new Set<() => Promise<void>>();
    const sessionSweepTimer: SweepTimer = (sweep) => {
      sweeps.add(sweep);
      return () => sweeps.delete(sweep);
    };
    const options = { databaseUrl: scoped.url, plugins, mcp, internals: { sessionSweepTimer } };
    const a = await startMcpGateway({ ...options, stopLater: stop });
    const b = await startMcpGateway({ ...options, stopLater: stop });
    /** Each instance sweeps `times` times in turn, every sweep over before the next begins. */
    const sweep = async (times = 1) => {
      for (let i = 0; i < times; i += 1) for (const one of [...sweeps]) await one();
    };
    return { a, b, alice: await a.user({ admin: true }), sweep };
  }

  let releasing: ReturnType<typeof pair> | undefined;
  /** A pair releasing call streams after 100 ms, which the tests of such streams share. */
  const releasingPair = () => {
    releasing ??= pair({ releaseStreamAfterMs: 100 }, stopLater);
    return releasing;
  };

  function resume(url: string, token: string, sessionId: string, lastEventId: string) {
    return fetch(`${url}/mcp`, {
      headers: {
        authorization: `Bearer ${token}`,
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-11-25',
        accept: 'text/event-stream',
        'last-event-id': lastEventId,
      },
    });
  }

  it('resumes a stream released on one instance with Last-Event-ID on another, mid-call', async () => {
    const { a, b, alice } = await releasingPair();
    const sessionId = await openSession(a.url, alice.mcpToken);
    const call = await post(a.url, alice.mcpToken, sessionId, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: NAP,
    });
    const before = await sseEvents(call);
    // Only the priming event: the stream was released mid-call.
    expect(before).toEqual([{ id: expect.any(String), retry: '1000', data: '' }]);
    const lastEventId = before[0]?.id ?? '';
    // At once, while the call still runs on A; B has never seen the session and follows what A
    // stores until the answer comes.
    const resumed = await resume(b.url, alice.mcpToken, sessionId, lastEventId);
    expect(resumed.status).toBe(200);
    const replayed = await sseEvents(resumed);
    expect(replayed.map((event) => event.data).join('\n')).toContain('rested');
  });

  it('refuses a Last-Event-ID of another session, or of none, with a 4xx and replays nothing', async () => {
    const { a, b, alice } = await releasingPair();
    const first = await openSession(a.url, alice.mcpToken);
    const second = await openSession(a.url, alice.mcpToken);
    const call = await post(a.url, alice.mcpToken, first, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: NAP,
    });
    const [priming] = await sseEvents(call);
    // Its own session takes the stream up and reads it to the answer: every event of the call
    // is stored now, so replaying any of them to another session would show.
    const own = await resume(a.url, alice.mcpToken, first, priming?.id ?? '');
    expect((await sseEvents(own)).map((event) => event.data).join('\n')).toContain('rested');
    for (const lastEventId of [priming?.id ?? '', 'not-an-id', '99999999999999999999999']) {
      const resumed = await resume(b.url, alice.mcpToken, second, lastEventId);
      expect(resumed.status).toBeGreaterThanOrEqual(400);
      expect(resumed.status).toBeLessThan(500);
      expect(await resumed.text()).not.toContain('rested');
    }
  });

  it('expires an idle session on every instance', async () => {
    // The sessions' clock (Date) stands still until the test moves it past the idle time, so the
    // ping below comes in time however slow the machine, and nothing waits out the idle time.
    const { a, b, alice, sweep } = await pair({ sessionIdleMs: 100 });
    stopTheClock();
    const sessionId = await openSession(a.url, alice.mcpToken);
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    expect((await post(b.url, alice.mcpToken, sessionId, ping)).status).toBe(200);
    // Swept twice, the session is still there: no time has passed.
    await sweep(2);
    expect([await openSessions(a.url), await openSessions(b.url)]).toEqual([1, 1]);
    vi.setSystemTime(Date.now() + 1000);
    // One sweep of each instance expires it in the database and lets it go on both (checked
    // without a ping, which would keep it alive).
    await sweep();
    const stored = sessionDb(a.gateway.services.database);
    const left = {
      stored: (await stored.selectFrom('mcp_sessions').select('id').execute()).map((row) => row.id),
      open: [await openSessions(a.url), await openSessions(b.url)],
    };
    expect(left).toEqual({ stored: expect.not.arrayContaining([sessionId]), open: [0, 0] });
    expect((await post(a.url, alice.mcpToken, sessionId, ping)).status).toBe(404);
    expect((await post(b.url, alice.mcpToken, sessionId, ping)).status).toBe(404);
  });

  it('caps the copies an instance rebuilds of sessions opened elsewhere, and drops idle ones', async () => {
    const { a, b, alice, sweep } = await pair({ maxRebuiltSessions: 2, rebuiltSessionIdleMs: 100 });
    stopTheClock();
    const sessions = [
      await openSession(a.url, alice.mcpToken),
      await openSession(a.url, alice.mcpToken),
      await openSession(a.url, alice.mcpToken),
    ];
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    // Each is served by the other instance too, which keeps at most two copies.
    for (const sessionId of sessions) {
      expect((await post(b.url, alice.mcpToken, sessionId, ping)).status).toBe(200);
    }
    await sweep(2);
    expect(await openSessions(b.url)).toBe(2);
    expect(await openSessions(a.url)).toBe(3);
    // Unused, the copies go; the sessions stay open where they were opened, and anywhere else.
    vi.setSystemTime(Date.now() + 1000);
    await sweep();
    expect(await openSessions(b.url)).toBe(0);
    expect(await openSessions(a.url)).toBe(3);
    for (const sessionId of sessions) {
      expect((await post(b.url, alice.mcpToken, sessionId, ping)).status).toBe(200);
      expect((await post(a.url, alice.mcpToken, sessionId, ping)).status).toBe(200);
    }
  });
});

const NAP = { name: 'calls.slow.nap', arguments: { ms: 400 } };

/**
 * Stops Date (the clock sessions are idle by) until `vi.setSystemTime` moves it; timers still run.
 * Put back when the test ends.
 */
function stopTheClock(): void {
  vi.useFakeTimers({ toFake: ['Date'] });
  onTestFinished(() => {
    vi.useRealTimers();
  });
}

/** The sessions the instance at `url` holds open, as its metrics say. */
async function openSessions(url: string): Promise<number> {
  const response = await fetch(`${url}/metrics`, {
    headers: { authorization: `Bearer ${TEST_SERVICE_SECRET}` },
  });
  const value = /^gateway_mcp_sessions_open (\d+)$/m.exec(await response.text())?.[1];
  return Number(value);
}

/** Opens a 2025-11-25 session with raw HTTP; returns its id. */
async function openSession(
  url: string,
  token: string,
  capabilities: Record<string, unknown> = {},
): Promise<string> {
  const response = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities,
        clientInfo: { name: 'raw', version: '1' },
      },
    }),
  });
  await response.text();
  const id = response.headers.get('mcp-session-id');
  if (id === null) throw new Error('no session');
  return id;
}

/** The SSE events of a response, as `{ id?, retry?, data }`, until the server ends the stream. */
async function sseEvents(response: Response) {
  return (await response.text())
    .split('\n\n')
    .filter((block) => block.trim() !== '' && !block.startsWith(':'))
    .map((block) => {
      const field = (name: string) =>
        block
          .split('\n')
          .find((line) => line.startsWith(`${name}:`))
          ?.slice(name.length + 1)
          .trim();
      return { id: field('id'), retry: field('retry'), data: field('data') ?? '' };
    });
}
