/**
 * Issue 16: an upstream is someone else's server. URLs that would make the gateway reach itself,
 * its neighbours or cloud metadata are refused; an upstream that hangs, drops the connection,
 * sends garbage, a huge body, a redirect or an HTTP error ends each call as a clear `isError`
 * result within the tool time limit, and one that keeps failing is backed off and shown degraded.
 * Each misbehaviour is tried on a 2025 upstream and on one that claims 2026-07-28. The time limit
 * is the test's (ManualCallTimer): a call that ends while its limit is armed ended by itself, and
 * the hanging one ends when the test expires it, so nothing here waits on a clock.
 */

import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { specTypeSchemas, withInputRequired } from '@modelcontextprotocol/client';
import {
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { gate } from '#test/mcp/hold-plugin.js';
import { ManualCallTimer } from '#test/mcp/manual-call-timer.js';
import { connectV1, connectV2, recordsOf, startMcpGateway } from '#test/mcp/mcp-test-kit.js';
import { TEST_SERVICE_SECRET } from '#test/support/test-gateway.js';
import { type FakeTool, startFakeUpstream } from '#test/upstream/fake-upstream.js';
import { gatewayServing, registerSource } from '#test/upstream/register-source.js';
import { startSdkUpstream } from '#test/upstream/sdk-upstream.js';
import { MAX_CALL_ROUNDS } from '../mcp/call/running-call.js';
import { checkUpstreamUrl, guardedLookup, type UrlPolicy } from './url-policy.js';

const strict: UrlPolicy = {
  allowPrivate: false,
  selfOrigins: () => ['https://gateway.example.com'],
  selfPorts: () => [8787],
};
const lenient: UrlPolicy = { ...strict, allowPrivate: true };

/** A 2026-07-28 client of a gateway serving `upstream` as source `up`. */
async function modernClientOf(
  upstream: { url: string },
  capabilities?: Parameters<typeof connectV2>[2],
) {
  const gw = await gatewayServing(upstream.url, 'up');
  const alice = await gw.user({ admin: true });
  return { gw, alice, client: await connectV2(gw.url, alice.mcpToken, capabilities) };
}

describe('upstream URLs', () => {
  it.each([
    ['file:///etc/passwd', 'http: or https:'],
    ['gopher://example.com/', 'http: or https:'],
    ['not a url', 'not a URL'],
    ['https://user:pass@example.com/mcp', 'credentials'],
    ['https://example.com/mcp#x', 'fragment'],
    ['https://gateway.example.com/mcp', 'the gateway itself'],
    ['http://169.254.169.254/latest/meta-data', 'link-local'],
    ['http://[::ffff:169.254.169.254]/', 'link-local'],
    ['http://[fe80::1]/', 'link-local'],
    ['http://0.0.0.0:3000/', 'unspecified'],
    ['http://127.0.0.1:3000/mcp', 'loopback'],
    ['http://0x7f.1:3000/mcp', 'loopback'],
    ['http://localhost:3000/mcp', 'loopback'],
    ['http://10.1.2.3/mcp', 'private'],
    ['http://[fd00::1]/mcp', 'private'],
  ])('refuses %s', (url, problem) => {
    const checked = checkUpstreamUrl(url, strict);
    expect(checked.ok).toBe(false);
    expect(checked.ok ? '' : checked.problem).toContain(problem);
  });

  it('allows private addresses only when told, and never the gateway or metadata', () => {
    expect(checkUpstreamUrl('http://127.0.0.1:3000/mcp', lenient).ok).toBe(true);
    expect(checkUpstreamUrl('http://10.1.2.3/mcp', lenient).ok).toBe(true);
    expect(checkUpstreamUrl('https://mcp.example.com/mcp', strict).ok).toBe(true);
    for (const url of [
      'http://127.0.0.1:8787/mcp',
      'http://localhost:8787/api/registry/sources',
      'http://[::1]:8787/mcp',
      'http://169.254.169.254/',
    ]) {
      expect(checkUpstreamUrl(url, lenient).ok, url).toBe(false);
    }
  });

  it('checks the addresses a host name resolves to when connecting', async () => {
    const lookup = guardedLookup(3000, strict);
    const error = await new Promise<unknown>((resolve) =>
      lookup('localhost', {}, (failure) => resolve(failure)),
    );
    expect(String(error)).toContain('resolves to a loopback address');
    const allowed = await new Promise<unknown>((resolve) =>
      guardedLookup(3000, lenient)('localhost', {}, (failure, address) =>
        resolve(failure ?? address),
      ),
    );
    expect(allowed).toMatch(/^(127\.0\.0\.1|::1)$/);
  });

  it('answers 400 through the API, storing nothing', async () => {
    const gw = await startMcpGateway();
    for (const url of ['http://127.0.0.1:9/mcp', `${gw.url}/mcp`, 'ftp://example.com/']) {
      const answer = await registerSource(gw.url, { type: 'mcp', id: 'x', namespace: 'x', url });
      expect(answer.status, url).toBe(400);
    }
    const own = await startMcpGateway({ env: { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true' } });
    const self = await registerSource(own.url, {
      type: 'mcp',
      id: 'x',
      namespace: 'x',
      url: `${own.url}/mcp`,
    });
    expect(self.status).toBe(400);
    expect(await self.text()).toContain('the gateway itself');
    const rows = await own.gateway.services.database.db
      .selectFrom('registry_sources')
      .selectAll()
      .execute();
    expect(rows).toEqual([]);
  });
});

describe.each([
  ['2025', false],
  ['2026-07-28', true],
])('a misbehaving %s upstream', (_revision, claims2026) => {
  const TOOLS: FakeTool[] = [
    { name: 'hang', behaviour: { kind: 'hang' } },
    { name: 'kill', behaviour: { kind: 'kill' } },
    { name: 'garbage', behaviour: { kind: 'garbage' } },
    { name: 'huge', behaviour: { kind: 'huge', bytes: 200_000 } },
    { name: 'redirect', behaviour: { kind: 'redirect', location: 'http://127.0.0.1:1/' } },
    { name: 'broken', behaviour: { kind: 'status', status: 500 } },
    { name: 'fine', behaviour: { kind: 'answer', text: 'all good' } },
  ];

  it('ends every call as a clear isError result within the time limit, then is backed off', async () => {
    const fake = await startFakeUpstream(TOOLS, { claims2026 });
    const timer = new ManualCallTimer();
    const gw = await startMcpGateway({
      env: { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true', GATEWAY_UPSTREAM_MAX_BYTES: '65536' },
      mcp: { toolTimeoutMs: 1500 },
      internals: { callTimer: timer },
    });
    expect(
      (await registerSource(gw.url, { type: 'mcp', id: 'bad', namespace: 'bad', url: fake.url }))
        .status,
    ).toBe(201);
    const alice = await gw.user({ admin: true });
    const client = await connectV2(gw.url, alice.mcpToken);
    const call = async (name: string) => {
      const result = await client.callTool({ name: `bad.${name}`, arguments: {} });
      return { result, text: JSON.stringify(result.content) };
    };

    // The hanging call holds its upstream request until its limit expires, then lets it go.
    const hanging = call('hang');
    await expect.poll(() => fake.hanging, { timeout: 10_000 }).toBe(1);
    expect(timer.armed).toEqual([1500]);
    timer.expireAll();
    const hang = await hanging;
    expect(hang.result.isError).toBe(true);
    expect(hang.text).toContain('did not finish within 1.5 s');
    await expect.poll(() => fake.hanging, { timeout: 10_000 }).toBe(0);

    const expectations: [string, string][] = [
      ['kill', 'dropped the connection'],
      ['garbage', 'not MCP'],
      ['huge', 'over 65536 bytes'],
      ['redirect', 'does not follow'],
    ];
    for (const [name, words] of expectations) {
      const { result, text } = await call(name);
      expect(result.isError, name).toBe(true);
      expect(text, name).toContain(words);
      // Ended by itself, its limit never expired, and cleared with the call.
      expect(timer.armed, name).toEqual([]);
    }
    // Five failures in a row (the time limit counts): calls now fail at once, upstream untouched.
    const before = fake.calls.length;
    const degraded = await call('fine');
    expect(degraded.result.isError).toBe(true);
    expect(degraded.text).toContain('is degraded');
    expect(fake.calls.length).toBe(before);
    // Other sources are not slowed.
    const plugin = await client.callTool({ name: 'demo.echo.say', arguments: { text: 'hi' } });
    expect(plugin.isError).toBeFalsy();

    const listed = await fetch(`${gw.url}/api/registry/sources`, {
      headers: { authorization: `Bearer ${TEST_SERVICE_SECRET}` },
    });
    const { sources } = (await listed.json()) as {
      sources: { id: string; upstream?: { health: { state: string; lastError: string } } }[];
    };
    expect(sources.find((source) => source.id === 'bad')?.upstream?.health).toMatchObject({
      state: 'degraded',
    });
    const rows = await gw.gateway.services.database.db
      .selectFrom('executions')
      .select(['tool_path', 'outcome', 'error'])
      .where('tool_path', 'like', 'bad.%')
      .orderBy('started_at')
      .execute();
    expect(rows.map((row) => row.outcome)).toEqual([
      'timeout',
      'error',
      'error',
      'error',
      'error',
      'error',
    ]);
    expect(rows.at(-1)?.error).toBe('Upstream degraded');
  });

  it('reads event-stream answers: resumes one cut after an event id, refuses garbage, huge or unanswered streams and a JSON answer cut off', async () => {
    const fake = await startFakeUpstream(
      [
        { name: 'resume', behaviour: { kind: 'sse-resume', text: 'resumed answer' } },
        { name: 'garbage', behaviour: { kind: 'sse-garbage' } },
        { name: 'huge', behaviour: { kind: 'sse-huge', bytes: 100_000 } },
        { name: 'cut', behaviour: { kind: 'sse-cut' } },
        { name: 'jsoncut', behaviour: { kind: 'json-cut' } },
      ],
      { claims2026 },
    );
    const timer = new ManualCallTimer();
    const gw = await startMcpGateway({
      env: { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true', GATEWAY_UPSTREAM_MAX_BYTES: '65536' },
      internals: { callTimer: timer },
    });
    await registerSource(gw.url, { type: 'mcp', id: 'sse', namespace: 'sse', url: fake.url });
    const alice = await gw.user({ admin: true });
    const client = await connectV2(gw.url, alice.mcpToken);

    const resumed = await client.callTool({ name: 'sse.resume', arguments: {} });
    expect(resumed.isError).toBeFalsy();
    expect(resumed.content).toEqual([{ type: 'text', text: 'resumed answer' }]);

    const expectations: [string, string][] = [
      ['garbage', 'not MCP'],
      ['huge', 'over 65536 bytes'],
      ['cut', 'not MCP'],
      // A JSON answer cut off mid-body, the connection dropped.
      ['jsoncut', 'dropped the connection'],
    ];
    for (const [name, words] of expectations) {
      const result = await client.callTool({ name: `sse.${name}`, arguments: {} });
      expect(result.isError, name).toBe(true);
      expect(JSON.stringify(result.content), name).toContain(words);
      // Not left to the time limit: it never expires here, and the call cleared it.
      expect(timer.armed, name).toEqual([]);
    }
  });

  it('never hands an answer smuggled after another to the next call, whoever makes it', async () => {
    const fake = await startFakeUpstream(
      [
        { name: 'smuggle', behaviour: { kind: 'smuggle' } },
        { name: 'fine', behaviour: { kind: 'answer' } },
      ],
      { claims2026 },
    );
    const gw = await startMcpGateway({ env: { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true' } });
    await registerSource(gw.url, { type: 'mcp', id: 'up', namespace: 'up', url: fake.url });
    const alice = await gw.user({ admin: true });
    const bob = await gw.user({ admin: true });
    const aliceClient = await connectV2(gw.url, alice.mcpToken);
    const bobClient = await connectV2(gw.url, bob.mcpToken);
    for (let i = 0; i < 3; i++) {
      const smuggler = await aliceClient.callTool({ name: 'up.smuggle', arguments: {} });
      expect(smuggler.content).toEqual([{ type: 'text', text: 'smuggler answered' }]);
      for (const client of [bobClient, aliceClient]) {
        const next = await client.callTool({ name: 'up.fine', arguments: {} });
        expect(JSON.stringify(next.content)).not.toContain('smuggled');
        expect(JSON.stringify(next.content)).toContain('ran fine as');
      }
    }
  });

  it("never ends a call with an answer to another call's id (a batch, a stream), and ends each clearly (issue 37 review)", async () => {
    const fake = await startFakeUpstream(
      [
        { name: 'hang', behaviour: { kind: 'hang' } },
        { name: 'batch', behaviour: { kind: 'batch', own: true } },
        { name: 'batchother', behaviour: { kind: 'batch', own: false } },
        { name: 'both', behaviour: { kind: 'result-and-error' } },
        { name: 'never', behaviour: { kind: 'sse-never' } },
      ],
      { claims2026 },
    );
    const timer = new ManualCallTimer();
    const gw = await startMcpGateway({
      env: { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true' },
      mcp: { toolTimeoutMs: 1500 },
      internals: { callTimer: timer },
    });
    await registerSource(gw.url, { type: 'mcp', id: 'up', namespace: 'up', url: fake.url });
    const alice = await gw.user({ admin: true });
    const bob = await gw.user({ admin: true });
    const aliceClient = await connectV2(gw.url, alice.mcpToken);
    const bobClient = await connectV2(gw.url, bob.mcpToken);
    const call = async (client: typeof aliceClient, name: string) => {
      const result = await client.callTool({ name: `up.${name}`, arguments: {} });
      return { isError: result.isError === true, text: JSON.stringify(result.content) };
    };

    // Alice's call waits on the upstream; Bob's answers carry answers to the ids beside theirs,
    // hers among them, and a stream that never answers his own call.
    const hanging = call(aliceClient, 'hang');
    await expect.poll(() => fake.hanging, { timeout: 10_000 }).toBe(1);
    for (let i = 0; i < 3; i += 1) {
      expect(await call(bobClient, 'batch')).toEqual({
        isError: false,
        text: JSON.stringify([{ type: 'text', text: 'batch answered' }]),
      });
    }
    const never = call(bobClient, 'never');
    await expect.poll(() => fake.lingering, { timeout: 10_000 }).toBe(1);
    // Both held until their time limit, no longer; neither took an answer that was not its own.
    expect(timer.armed).toEqual([1500, 1500]);
    timer.expireAll();
    for (const ended of [await hanging, await never]) {
      expect(ended.isError).toBe(true);
      expect(ended.text).toContain('did not finish within 1.5 s');
      expect(ended.text).not.toContain('stolen');
    }
    await expect.poll(() => fake.hanging, { timeout: 10_000 }).toBe(0);
    await expect.poll(() => fake.lingering, { timeout: 10_000 }).toBe(0);

    // Ended at once (their time limit never expires here), each as not MCP.
    for (const name of ['batchother', 'both']) {
      const ended = await call(bobClient, name);
      expect(ended.isError, name).toBe(true);
      expect(ended.text, name).toContain('answered something that is not MCP');
      expect(ended.text, name).not.toContain('stolen');
      expect(timer.armed, name).toEqual([]);
    }
  });

  it("closes a call's stream once it has the answer, whatever the upstream sends after", async () => {
    const fake = await startFakeUpstream([{ name: 'linger', behaviour: { kind: 'sse-linger' } }], {
      claims2026,
    });
    const gw = await startMcpGateway({ env: { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true' } });
    await registerSource(gw.url, { type: 'mcp', id: 'up', namespace: 'up', url: fake.url });
    const alice = await gw.user({ admin: true });
    const client = await connectV2(gw.url, alice.mcpToken);
    for (let i = 0; i < 5; i++) {
      const result = await client.callTool({ name: 'up.linger', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'answered, still here' }]);
    }
    // Else each answered call would hold a socket (and hear the stream) until the upstream let go.
    await expect.poll(() => fake.lingering, { timeout: 2000 }).toBe(0);
  });

  it('refuses a result nested too deep to forward as not MCP, never a 5xx or a hung call', async () => {
    const fake = await startFakeUpstream(
      [{ name: 'deep', behaviour: { kind: 'deep', depth: 100_000 } }],
      { claims2026 },
    );
    const gw = await startMcpGateway({ env: { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true' } });
    await registerSource(gw.url, { type: 'mcp', id: 'up', namespace: 'up', url: fake.url });
    const alice = await gw.user({ admin: true });
    for (const client of [
      await connectV2(gw.url, alice.mcpToken),
      (await connectV1(gw.url, alice.mcpToken)).client,
    ]) {
      const result = await client.callTool({ name: 'up.deep', arguments: {} });
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toContain('not MCP');
    }
    const rows = await recordsOf(gw, 'up.deep');
    expect(rows.map((row) => row.outcome)).toEqual(['error', 'error']);
  });

  it('leaves out a listed tool too large to serve to every client, keeping the rest', async () => {
    const huge = {
      type: 'object',
      properties: { x: { type: 'string', description: 'x'.repeat(100_000) } },
    };
    const fake = await startFakeUpstream(
      [
        { name: 'small', behaviour: { kind: 'answer', text: 'small ran' } },
        { name: 'huge', behaviour: { kind: 'answer' }, inputSchema: huge },
      ],
      { claims2026 },
    );
    const { gw, client } = await modernClientOf(fake);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('up.small');
    expect(names).not.toContain('up.huge');
    expect(gw.gateway.logs()).toContain('upstream tools left out: too large');
  });

  it('says an HTTP error for what it is', async () => {
    const fake = await startFakeUpstream(TOOLS, { claims2026 });
    const gw = await startMcpGateway({ env: { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true' } });
    await registerSource(gw.url, { type: 'mcp', id: 'bad', namespace: 'bad', url: fake.url });
    const alice = await gw.user({ admin: true });
    const client = await connectV2(gw.url, alice.mcpToken);
    const result = await client.callTool({ name: 'bad.broken', arguments: {} });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('answered HTTP 500');
  });

  it('ends a call whose "URL elicitation required" error names unfit links, asking nobody', async () => {
    const link = (url: string) => ({ mode: 'url', url, message: 'Sign in', elicitationId: 'e1' });
    const required = (name: string, data: unknown): FakeTool => ({
      name,
      behaviour: { kind: 'error', code: -32042, message: 'Open these first', data },
    });
    const fake = await startFakeUpstream(
      [
        required('script', { elicitations: [link('javascript:alert(document.cookie)')] }),
        required('plain', { elicitations: [link('http://phish.example.com/login')] }),
        required('secret', { elicitations: [link('https://user:pw@auth.example.com/')] }),
        required('many', {
          elicitations: Array.from({ length: 5 }, () => link('https://a.example/')),
        }),
        required('form', { elicitations: [{ mode: 'form', message: 'Your PIN?' }] }),
        required('none', 'not a list of links'),
      ],
      { claims2026 },
    );
    const gw = await startMcpGateway({ env: { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true' } });
    await registerSource(gw.url, { type: 'mcp', id: 'bad', namespace: 'bad', url: fake.url });
    const alice = await gw.user({ admin: true });
    // A client that takes links, and one that does not (whose user would see the approvals list).
    const { client: takesLinks } = await connectV1(gw.url, alice.mcpToken, { elicitation: 'url' });
    let asked = 0;
    takesLinks.setRequestHandler(ElicitRequestSchema, async () => {
      asked += 1;
      return { action: 'accept' };
    });
    const plain = await connectV2(gw.url, alice.mcpToken);
    for (const name of ['script', 'plain', 'secret', 'many', 'form', 'none']) {
      for (const client of [takesLinks, plain]) {
        const result = await client.callTool({ name: `bad.${name}`, arguments: {} });
        expect(result.isError, name).toBe(true);
        expect(JSON.stringify(result.content), name).toContain(
          'needs a step in the browser first, in a form the gateway does not relay',
        );
      }
    }
    // One reason in full: what was wrong, and who can mend it.
    const many = await plain.callTool({ name: 'bad.many', arguments: {} });
    expect(many.content).toEqual([
      {
        type: 'text',
        text: 'The upstream MCP server of source "bad" needs a step in the browser first, in a form the gateway does not relay. It names no links, or more than 4. Tell whoever runs that server.',
      },
    ]);
    expect(asked).toBe(0);
    const approvals = await gw.gateway.request('GET', `/api/approvals?userId=${alice.id}`, {
      as: alice,
    });
    expect(((await approvals.json()) as { approvals: unknown[] }).approvals).toEqual([]);
  });

  it('refuses a registration whose tool list cannot be fetched, saying why', async () => {
    const gw = await startMcpGateway({ env: { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true' } });
    const answer = await registerSource(gw.url, {
      type: 'mcp',
      id: 'gone',
      namespace: 'gone',
      url: 'http://127.0.0.1:9/mcp',
    });
    expect(answer.status).toBe(503);
    const text = await answer.text();
    expect(text).toContain('cannot be reached');
    // The whole URL, path included (issue 31): several servers may share an origin.
    expect(text).toContain('http://127.0.0.1:9/mcp could not be fetched');
  });
});

/**
 * A 2025 upstream on 127.0.0.1 that answers `initialize` (with a session) and `tools/list`, and
 * holds forever, never answering even its headers, what `holds` names: every POST without an id
 * (a notification, an answer to a request of its own), the session's GET stream, or `initialize`
 * itself. Stopped when the test ends.
 */
async function startHoldingUpstream(holds: 'messages' | 'session stream' | 'initialize') {
  const held = new Set<ServerResponse>();
  /** What was held, in order: a notification's method, `answer` or `GET`. */
  const seen: string[] = [];
  let first: () => void = () => {};
  const firstHeld = new Promise<void>((resolve) => {
    first = resolve;
  });
  const hold = (what: string, response: ServerResponse) => {
    held.add(response);
    response.on('close', () => held.delete(response));
    seen.push(what);
    first();
  };
  const server = createServer(async (request, response) => {
    if (request.method === 'GET') {
      if (holds === 'session stream') hold('GET', response);
      else response.writeHead(405).end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      id?: number | string;
      method?: string;
      params?: { protocolVersion?: string };
    };
    if (holds === 'initialize' && message.method === 'initialize') {
      hold('initialize', response);
      return;
    }
    if (message.id === undefined || message.method === undefined) {
      if (holds === 'messages') hold(message.method ?? 'answer', response);
      else response.writeHead(202).end();
      return;
    }
    const result =
      message.method === 'initialize'
        ? {
            protocolVersion: message.params?.protocolVersion ?? '2025-11-25',
            capabilities: { tools: {} },
            serverInfo: { name: 'holding', version: '1.0.0' },
          }
        : message.method === 'tools/list'
          ? { tools: [{ name: 'echo', inputSchema: { type: 'object', properties: {} } }] }
          : undefined;
    response.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'held' });
    response.end(
      JSON.stringify(
        result === undefined
          ? { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } }
          : { jsonrpc: '2.0', id: message.id, result },
      ),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seen,
    firstHeld,
    /** Requests held and not yet dropped by the gateway. */
    held: () => held.size,
  };
}

describe('an upstream that never answers initialize', () => {
  // Issue 37 note: the SDK's RequestTimeout was worded "failed" where no call was judged.
  it('refuses the registration saying it timed out and after how long, never the query', async () => {
    const upstream = await startHoldingUpstream('initialize');
    const gw = await startMcpGateway({
      env: { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true' },
      internals: { upstreamConnectTimeoutMs: 300 },
    });
    const answer = await registerSource(gw.url, {
      type: 'mcp',
      id: 'slow',
      namespace: 'slow',
      url: `${upstream.url}?key=sekrit`,
    });
    expect(answer.status).toBe(503);
    expect(await answer.json()).toEqual({
      error: {
        code: 'service_unavailable',
        message: `The tool list of ${upstream.url} could not be fetched: it did not answer within 0.3 s.`,
      },
    });
    expect(upstream.seen).toEqual(['initialize']);
    await expect.poll(upstream.held).toBe(0);
    await gw.gateway.stop();
  });
});

describe('an upstream that never answers what asks nothing of it', () => {
  // A POST without a request of its own is bounded by nothing the SDK sets: its connect time
  // limit covers `initialize` only. Held, it held the registration (past the connect limit) and
  // then the gateway's stop.
  it('refuses the registration within the message limit, and lets the gateway stop', async () => {
    const upstream = await startHoldingUpstream('messages');
    const gw = await startMcpGateway({
      env: { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true' },
      internals: { upstreamMessageTimeoutMs: 300 },
    });
    const answer = await registerSource(gw.url, {
      type: 'mcp',
      id: 'mute',
      namespace: 'mute',
      url: upstream.url,
    });
    // As any upstream whose tool list cannot be fetched (documented 503, the message says why).
    expect(answer.status).toBe(503);
    expect(await answer.json()).toEqual({
      error: {
        code: 'service_unavailable',
        message: `The tool list of ${upstream.url} could not be fetched: it did not accept notifications/initialized within 0.3 s.`,
      },
    });
    expect(upstream.seen).toEqual(['notifications/initialized']);
    // The held POST was dropped, not left open on the upstream.
    await expect.poll(upstream.held).toBe(0);
    await gw.gateway.stop();
  });

  it('lets the gateway stop at once while a registration waits on such a POST', async () => {
    const upstream = await startHoldingUpstream('messages');
    // A limit past the test's own: only the stop can end the held POST.
    const gw = await startMcpGateway({
      env: { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true' },
      internals: { upstreamMessageTimeoutMs: 600_000 },
    });
    const answer = registerSource(gw.url, {
      type: 'mcp',
      id: 'mute',
      namespace: 'mute',
      url: upstream.url,
    });
    await upstream.firstHeld;
    await gw.gateway.stop();
    // The gateway has closed its end; the upstream hears the close a moment later.
    await expect.poll(upstream.held).toBe(0);
    expect((await answer).status).toBe(503);
  });

  it('closes a source whose registration the gateway stopped between listing and storing', async () => {
    const upstream = await startHoldingUpstream('session stream');
    const gw = await startMcpGateway({ env: { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true' } });
    const { upstreams, database } = gw.gateway.services;
    // The registration's store waits until the stop has closed the upstream service.
    const closed = gate();
    const close = upstreams.close.bind(upstreams);
    vi.spyOn(upstreams, 'close').mockImplementation(() => close().finally(closed.release));
    const storing = gate();
    const transaction = database.db.transaction.bind(database.db);
    vi.spyOn(database.db, 'transaction').mockImplementationOnce(() => {
      const builder = transaction();
      const execute = builder.execute.bind(builder);
      builder.execute = async (work) => {
        storing.release();
        await closed.released;
        return execute(work);
      };
      return builder;
    });
    const answer = registerSource(gw.url, {
      type: 'mcp',
      id: 'late',
      namespace: 'late',
      url: upstream.url,
    });
    await storing.released;
    await gw.gateway.stop();
    // Stored for the other instances; closed here, its session's GET stream with it.
    expect((await answer).status).toBe(201);
    await expect.poll(upstream.held).toBe(0);
  });

  it("lets the gateway stop while a session's GET stream never answers", async () => {
    const upstream = await startHoldingUpstream('session stream');
    const gw = await startMcpGateway({ env: { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true' } });
    const answer = await registerSource(gw.url, {
      type: 'mcp',
      id: 'quiet',
      namespace: 'quiet',
      url: upstream.url,
    });
    expect(answer.status).toBe(201);
    await upstream.firstHeld;
    expect(upstream.held()).toBe(1);
    await gw.gateway.stop();
    await expect.poll(upstream.held).toBe(0);
  });
});

describe('an upstream that asks something else when the call runs again', () => {
  // A 2026-07-28 client answers a question of a 2025 upstream in a round of its own, and the call
  // runs again with that answer; the upstream asks again from the start. An answer (a model's
  // too) is bound to what it answered: asked something else in its place, the client is asked anew.

  /** Gives `words` in turn, then the last again and again. */
  const inTurn = (words: string[]) => {
    let asked = 0;
    return () => words[Math.min(asked++, words.length - 1)] ?? '';
  };

  it('does not give it the answer to the earlier question', async () => {
    const questions = ['Delete the staging data?', 'Delete the production data?'];
    const upstream = await startSdkUpstream({ ask: inTurn(questions) });
    const { client } = await modernClientOf(upstream, { elicitation: true });
    const shown: string[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      shown.push(request.params.message);
      return { action: 'accept', content: { sure: true } };
    });
    const result = await client.callTool({ name: 'up.ask', arguments: {} });
    // The first question (asked in the first run) and the second (asked in its place in the
    // second run) were both put to the user; the third run asks the second again, answered.
    // Each labelled with who asks (issue 31).
    expect(shown).toEqual(
      questions.map((text) => `Upstream source up, tool up.ask, asks: ${text}`),
    );
    expect(result.content).toEqual([{ type: 'text', text: 'accept: Delete the production data?' }]);
  });

  it("does not give it the model's answer to the earlier prompt", async () => {
    const prompts = ['Summarize the public notes', 'Summarize the private keys'];
    const upstream = await startSdkUpstream({ prompt: inTurn(prompts) });
    const { client } = await modernClientOf(upstream, { sampling: true });
    const shown: unknown[] = [];
    client.setRequestHandler('sampling/createMessage', async (request) => {
      const [message] = request.params.messages;
      shown.push(message?.content);
      return { role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'test-model' };
    });
    const result = await client.callTool({ name: 'up.summarize', arguments: {} });
    expect(shown).toEqual(prompts.map((text) => ({ type: 'text', text })));
    expect(result.content).toEqual([{ type: 'text', text: 'ok: Summarize the private keys' }]);
  });

  it(`ends the call once it has asked ${MAX_CALL_ROUNDS} questions, each new`, async () => {
    let asked = 0;
    const upstream = await startSdkUpstream({ ask: () => `Question ${++asked}?` });
    const { gw, alice, client } = await modernClientOf(upstream, { elicitation: true });
    const schema = withInputRequired(specTypeSchemas.CallToolResult);
    const call = (params: Record<string, unknown>) =>
      client.request(
        { method: 'tools/call', params: { name: 'up.ask', arguments: {}, ...params } },
        schema,
        {
          allowInputRequired: true,
        },
      );
    let answer = await call({});
    let rounds = 0;
    // Each round is answered yes, and the upstream, run again, asks something new.
    while ('requestState' in answer && rounds <= MAX_CALL_ROUNDS) {
      rounds += 1;
      answer = await call({
        requestState: String(answer.requestState),
        inputResponses: { gateway_elicit: { action: 'accept', content: { sure: true } } },
      });
    }
    expect(rounds).toBe(MAX_CALL_ROUNDS);
    expect(answer).toMatchObject({ isError: true });
    expect(JSON.stringify(answer)).toContain(
      `up.ask kept asking questions (more than ${MAX_CALL_ROUNDS} in one call), so it was stopped`,
    );
    await gw.gateway.services.executions.flush();
    const listed = await gw.gateway.request('GET', `/api/executions?userId=${alice.id}`, {
      as: alice,
    });
    const { executions } = (await listed.json()) as {
      executions: { toolPath: string; outcome: string; error: string | null }[];
    };
    expect(executions).toEqual([
      expect.objectContaining({
        toolPath: 'up.ask',
        outcome: 'error',
        error: `Asked more than ${MAX_CALL_ROUNDS} questions in one call`,
      }),
    ]);
  });
});

describe("an upstream's word that a link's step is done", () => {
  it('reaches the session client shown that link, and no word about a link it was not shown', async () => {
    const upstream = await startSdkUpstream({
      link: { url: 'https://auth.example.com/step', alsoDone: ['not-shown', 'step-2'] },
    });
    const gw = await startMcpGateway({ env: { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true' } });
    await registerSource(gw.url, { type: 'mcp', id: 'up', namespace: 'up', url: upstream.url });
    const alice = await gw.user({ admin: true });
    const { client } = await connectV1(gw.url, alice.mcpToken, { elicitation: 'url' });
    const shown: unknown[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      shown.push(request.params);
      return { action: 'accept' };
    });
    const done: string[] = [];
    client.setNotificationHandler(ElicitationCompleteNotificationSchema, (notification) => {
      done.push(notification.params.elicitationId);
    });
    const result = await client.callTool({ name: 'up.link', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'accept' }]);
    expect(shown).toEqual([
      expect.objectContaining({
        mode: 'url',
        url: 'https://auth.example.com/step',
        elicitationId: 'step-1',
      }),
    ]);
    expect(done).toEqual(['step-1']);
  });
});
