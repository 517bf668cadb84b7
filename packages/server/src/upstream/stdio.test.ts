/**
 * Issue 16: a stdio upstream is started and supervised by the gateway. One that dies in the
 * middle of a call ends that call as an `isError` result at once, and the next call starts it
 * again. Its messages are held to the limits an HTTP upstream's are: depth and size.
 */
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { connectV1, connectV2, recordsOf, startMcpGateway } from '#test/mcp/mcp-test-kit.js';

// An MCP server over stdio (newline-delimited JSON-RPC) that exits when `die` is called, answers
// `deep` nested 100,000 levels and `flood` with 200 KB, asks a question nested that deep in
// `ask_deep` and logs a line nested that deep in `noisy_deep`, and counts its starts in the file
// named by its first argument. `hold` says its tool list changed and waits: the tool list fetched
// next asks a question first (`list-q`), notes the gateway's answer in that file, then lists, and
// `hold` answers. `ask_mid_list` says its tool list changed, and asks (`mid-q`) once the fetch it
// set off is running: with `mode: 'asks'` the fetch is answered at once and the call ends with
// the answer; with `mode: 'ends'` the call ends first and the fetch once the question is answered.
const SERVER = `
const { appendFileSync } = require('node:fs');
appendFileSync(process.argv[2], 'start\\n');
let buffer = '';
let asking;
let holding;
let listing;
let midCall;
let midMode;
let count = 0;
// Written by hand: JSON.stringify cannot nest this deep.
const deep = '['.repeat(100000) + ']'.repeat(100000);
const write = (text) => process.stdout.write(text + '\\n');
const send = (message) => write(JSON.stringify(message));
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  let end;
  while ((end = buffer.indexOf('\\n')) >= 0) {
    const message = JSON.parse(buffer.slice(0, end));
    buffer = buffer.slice(end + 1);
    if (message.method === 'notifications/cancelled') appendFileSync(process.argv[2], 'cancelled\\n');
    if (message.id === undefined) continue;
    if (message.method === undefined && message.id === 'list-q') {
      appendFileSync(process.argv[2], 'list-q ' + JSON.stringify(message.error ?? message.result) + '\\n');
      send({ jsonrpc: '2.0', id: listing, result: { tools: [{ name: 'hold', inputSchema: { type: 'object' } }] } });
      send({ jsonrpc: '2.0', id: holding, result: { content: [{ type: 'text', text: 'held' }] } });
      continue;
    }
    if (message.method === undefined && message.id === 'mid-q') {
      appendFileSync(process.argv[2], 'mid-q ' + JSON.stringify(message.error ?? message.result) + '\\n');
      if (midMode === 'ends') send({ jsonrpc: '2.0', id: listing, result: { tools: [{ name: 'ask_mid_list', inputSchema: { type: 'object' } }] } });
      else send({ jsonrpc: '2.0', id: midCall, result: { content: [{ type: 'text', text: JSON.stringify(message.result ?? message.error) }] } });
      midCall = undefined;
      continue;
    }
    if (message.method === undefined) {
      // The gateway's answer to the question 'ask_deep' asked: the call ends with what it said.
      send({ jsonrpc: '2.0', id: asking, result: { content: [{ type: 'text', text: message.error?.message ?? 'answered' }] } });
      continue;
    }
    if (message.method === 'initialize') {
      send({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'mortal', version: '1' } } });
    } else if (message.method === 'tools/list' && holding !== undefined) {
      listing = message.id;
      send({ jsonrpc: '2.0', id: 'list-q', method: 'elicitation/create', params: { message: 'Your password?', requestedSchema: { type: 'object', properties: { password: { type: 'string' } } } } });
    } else if (message.method === 'tools/list' && midCall !== undefined) {
      // Asked while the fetch runs. 'asks': the call's question, the list answered at once and the
      // call with the answer; 'ends': the call ends first, and the list once the question is answered.
      listing = message.id;
      send({ jsonrpc: '2.0', id: 'mid-q', method: 'elicitation/create', params: { message: 'Which city?', requestedSchema: { type: 'object', properties: { city: { type: 'string' } } } } });
      if (midMode === 'asks') send({ jsonrpc: '2.0', id: listing, result: { tools: [{ name: 'ask_mid_list', inputSchema: { type: 'object' } }] } });
      else send({ jsonrpc: '2.0', id: midCall, result: { content: [{ type: 'text', text: 'ended' }] } });
    } else if (message.params?.name === 'ask_mid_list') {
      midCall = message.id;
      midMode = message.params.arguments?.mode;
      send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    } else if (message.params?.name === 'hold') {
      holding = message.id;
      send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    } else if (message.method === 'tools/list') {
      send({ jsonrpc: '2.0', id: message.id, result: { tools: [
        { name: 'die', inputSchema: { type: 'object' } },
        { name: 'live', inputSchema: { type: 'object' } },
        { name: 'deep', inputSchema: { type: 'object' } },
        { name: 'flood', inputSchema: { type: 'object' } },
        { name: 'ask_deep', inputSchema: { type: 'object' } },
        { name: 'noisy_deep', inputSchema: { type: 'object' } },
        { name: 'slow', inputSchema: { type: 'object' } },
        { name: 'count', inputSchema: { type: 'object' } },
        { name: 'hold', inputSchema: { type: 'object' } },
        { name: 'ask_mid_list', inputSchema: { type: 'object' } },
        { name: 'both', inputSchema: { type: 'object' } },
      ] } });
    } else if (message.params?.name === 'slow') {
      // Never answers: the caller cancels it.
      appendFileSync(process.argv[2], 'slow\\n');
    } else if (message.params?.name === 'count') {
      count += 1;
      send({ jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text: String(count) }] } });
    } else if (message.params?.name === 'both') {
      send({ jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text: 'both' }] }, error: { code: -32000, message: 'both' } });
    } else if (message.params?.name === 'die') {
      process.exit(3);
    } else if (message.params?.name === 'flood') {
      send({ jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text: 'x'.repeat(200000) }] } });
    } else if (message.params?.name === 'deep') {
      write('{"jsonrpc":"2.0","id":' + JSON.stringify(message.id) + ',"result":{"content":[],"structuredContent":{"a":' + deep + '}}}');
    } else if (message.params?.name === 'ask_deep') {
      asking = message.id;
      write('{"jsonrpc":"2.0","id":"q1","method":"elicitation/create","params":{"message":"deep?","requestedSchema":{"type":"object","properties":{"a":' + deep + '}}}}');
    } else if (message.params?.name === 'noisy_deep') {
      write('{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","data":' + deep + '}}');
      send({ jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text: 'alive' }] } });
    } else {
      send({ jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text: 'alive' }] } });
    }
  }
});
`;

/** A gateway serving {@link SERVER} over stdio as `mortal`, and an admin's client of it. */
async function startMortal(env: Record<string, string> = {}, timeoutMs = 5000) {
  const dir = tmpdir();
  const id = crypto.randomUUID();
  const script = join(dir, `mortal-${id}.cjs`);
  const starts = join(dir, `mortal-${id}.log`);
  const config = join(dir, `gateway-mortal-${id}.mjs`);
  onTestFinished(async () => {
    await Promise.all([script, starts, config].map((file) => rm(file, { force: true })));
  });
  await writeFile(script, SERVER);
  await writeFile(starts, '');
  await writeFile(
    config,
    `export default { upstreams: [{ id: 'mortal', namespace: 'mortal', approval: 'listed', command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(script)}, ${JSON.stringify(starts)}] }] };\n`,
  );
  const gw = await startMcpGateway({ configFile: config, env, mcp: { toolTimeoutMs: timeoutMs } });
  const alice = await gw.user({ admin: true });
  const client = await connectV2(gw.url, alice.mcpToken);
  const lines = async () => (await readFile(starts, 'utf8')).trim().split('\n');
  const started = async () => (await lines()).filter((line) => line === 'start');
  // Its processes: those whose command line names this test's script.
  const processes = async () => {
    const found: number[] = [];
    for (const pid of await readdir('/proc').catch(() => [])) {
      if (!/^\d+$/.test(pid)) continue;
      const command = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
      if (command.includes(script)) found.push(Number(pid));
    }
    return found;
  };
  return { gw, alice, client, started, lines, processes };
}

/** A 2025 client of `token` that accepts every question with `content`, and what it was asked. */
async function answering(url: string, token: string, content: Record<string, string>) {
  const { client } = await connectV1(url, token, { elicitation: true });
  const asked: string[] = [];
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params.message);
    return { action: 'accept', content };
  });
  return { client, asked };
}

describe('a stdio upstream', () => {
  it('that dies mid-call ends the call as an error, and is started again for the next', async () => {
    const { client, started: starts } = await startMortal();
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['mortal.die', 'mortal.live']),
    );

    const started = Date.now();
    const died = await client.callTool({ name: 'mortal.die', arguments: {} });
    expect(died.isError).toBe(true);
    expect(JSON.stringify(died.content)).toContain('closed the connection');
    expect(Date.now() - started).toBeLessThan(4000);

    const lived = await client.callTool({ name: 'mortal.live', arguments: {} });
    expect(lived.content).toEqual([{ type: 'text', text: 'alive' }]);
    expect(await starts()).toEqual(['start', 'start']);
  });

  it.each([
    ['nested too deep to forward', 'deep'],
    ['with both a result and an error', 'both'],
  ])('that answers %s ends the call as not MCP at once, and serves on', async (_what, tool) => {
    const { gw, client, started: starts } = await startMortal();
    const started = Date.now();
    const answered = await client.callTool({ name: `mortal.${tool}`, arguments: {} });
    expect(answered.isError).toBe(true);
    expect(JSON.stringify(answered.content)).toContain('not MCP');
    // Well inside the tool time limit (5 s): the answer is refused, not waited for.
    expect(Date.now() - started).toBeLessThan(4000);

    const lived = await client.callTool({ name: 'mortal.live', arguments: {} });
    expect(lived.content).toEqual([{ type: 'text', text: 'alive' }]);
    expect((await recordsOf(gw, `mortal.${tool}`)).map((row) => row.outcome)).toEqual(['error']);
    expect(await starts()).toEqual(['start']);
  });

  it('that asks or logs nested too deep is refused or not heard, and its call ends as it says', async () => {
    const { client, started: starts } = await startMortal();
    const asked = await client.callTool({ name: 'mortal.ask_deep', arguments: {} });
    expect(asked.content).toEqual([
      {
        type: 'text',
        text: 'The upstream sent a message nested more than 100 levels deep, which is not MCP',
      },
    ]);
    const noisy = await client.callTool({ name: 'mortal.noisy_deep', arguments: {} });
    expect(noisy.content).toEqual([{ type: 'text', text: 'alive' }]);
    expect(await starts()).toEqual(['start']);
  });

  it('asks nobody what it asks on a tool list fetch, even one its lone call set off', async () => {
    const { gw, alice, lines } = await startMortal();
    const { client, asked } = await answering(gw.url, alice.mcpToken, { password: 'hunter2' });
    // `hold` waits for the fetch its list_changed set off, which asks first: that question is the
    // fetch's, not the lone call's, and refused.
    const held = await client.callTool({ name: 'mortal.hold', arguments: {} });
    expect(held.content).toEqual([{ type: 'text', text: 'held' }]);
    const answer = (await lines()).find((line) => line.startsWith('list-q '));
    expect(JSON.parse(answer?.slice('list-q '.length) ?? 'null')).toMatchObject({ code: -32600 });
    expect(asked).toEqual([]);
  });

  // A question asked mid-call while a tool list fetch ran on the process was refused.
  it("relays its lone call's question asked while a tool list fetch runs, once the fetch is answered without it", async () => {
    const { gw, alice, lines } = await startMortal();
    const { client, asked } = await answering(gw.url, alice.mcpToken, { city: 'Lyon' });
    const result = await client.callTool({
      name: 'mortal.ask_mid_list',
      arguments: { mode: 'asks' },
    });
    expect(result.content).toEqual([
      { type: 'text', text: JSON.stringify({ action: 'accept', content: { city: 'Lyon' } }) },
    ]);
    expect(asked).toEqual([
      expect.stringMatching(
        /^Upstream source mortal, tool mortal\.ask_mid_list, asks[\s\S]*Which city\?/,
      ),
    ]);
    expect((await lines()).filter((line) => line.startsWith('mid-q '))).toHaveLength(1);
  });

  it('asks nobody a question whose call ended while a tool list fetch that may be waiting for it ran', async () => {
    const { gw, alice, lines } = await startMortal();
    const { client, asked } = await answering(gw.url, alice.mcpToken, { city: 'Lyon' });
    const result = await client.callTool({
      name: 'mortal.ask_mid_list',
      arguments: { mode: 'ends' },
    });
    expect(result.content).toEqual([{ type: 'text', text: 'ended' }]);
    // The refusal comes when the call ends: the question was the fetch's, or nobody's.
    let answer: string | undefined;
    await expect
      .poll(async () => {
        answer = (await lines()).find((line) => line.startsWith('mid-q '));
        return answer;
      })
      .toBeDefined();
    expect(JSON.parse(answer?.slice('mid-q '.length) ?? 'null')).toMatchObject({ code: -32600 });
    expect(asked).toEqual([]);
  });

  it('that sends a message over GATEWAY_UPSTREAM_MAX_BYTES is closed, and started again for the next call', async () => {
    const { client, started: starts } = await startMortal({ GATEWAY_UPSTREAM_MAX_BYTES: '65536' });
    const started = Date.now();
    const flood = await client.callTool({ name: 'mortal.flood', arguments: {} });
    expect(flood.isError).toBe(true);
    expect(JSON.stringify(flood.content)).toContain('closed the connection');
    expect(Date.now() - started).toBeLessThan(4000);

    const lived = await client.callTool({ name: 'mortal.live', arguments: {} });
    expect(lived.content).toEqual([{ type: 'text', text: 'alive' }]);
    expect(await starts()).toEqual(['start', 'start']);
  });

  // Issue 31: a cancelled call used to close the process, start another and leave the old one.
  it('keeps its one process and its state through ten cancelled calls, telling it each cancel', async () => {
    const { client, started, lines, processes } = await startMortal({}, 60_000);
    expect((await client.callTool({ name: 'mortal.count', arguments: {} })).content).toEqual([
      { type: 'text', text: '1' },
    ]);
    for (let i = 1; i <= 10; i++) {
      const stop = new AbortController();
      const call = client.callTool({ name: 'mortal.slow', arguments: {} }, { signal: stop.signal });
      // Cancelled once the process has the call.
      await expect
        .poll(async () => (await lines()).filter((line) => line === 'slow').length, {
          timeout: 10_000,
        })
        .toBe(i);
      stop.abort();
      await expect(call).rejects.toThrow();
    }
    await expect
      .poll(async () => (await lines()).filter((line) => line === 'cancelled').length, {
        timeout: 10_000,
      })
      .toBe(10);
    // The same process, its counter where it was.
    expect((await client.callTool({ name: 'mortal.count', arguments: {} })).content).toEqual([
      { type: 'text', text: '2' },
    ]);
    expect(await started()).toEqual(['start']);
    expect(await processes()).toHaveLength(1);
  });

  it('that exits is stopped and reaped, restarted once, and the gateway stops its last one', async () => {
    const { gw, client, started, processes } = await startMortal();
    const [first] = await processes();
    expect(first).toBeDefined();
    expect((await client.callTool({ name: 'mortal.die', arguments: {} })).isError).toBe(true);
    const listed = await gw.gateway.request('GET', '/api/registry/sources', { as: 'service' });
    const { sources } = (await listed.json()) as {
      sources: { id: string; upstream?: { health: { state: string; lastError: string | null } } }[];
    };
    expect(sources.find((source) => source.id === 'mortal')?.upstream?.health).toMatchObject({
      state: 'degraded',
      lastError: 'exited with code 3',
    });
    expect((await client.callTool({ name: 'mortal.count', arguments: {} })).isError).toBeFalsy();
    expect(await started()).toEqual(['start', 'start']);
    const now = await processes();
    expect(now).toHaveLength(1);
    expect(now).not.toContain(first);
    await gw.gateway.stop();
    await expect.poll(processes, { timeout: 10_000 }).toEqual([]);
  });
});
