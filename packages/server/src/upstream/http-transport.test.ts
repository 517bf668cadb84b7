import { AsyncLocalStorage } from 'node:async_hooks';
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { expect, it, onTestFinished } from 'vitest';
import { stopOf } from './abort-signals.js';
import { UpstreamHttpTransport } from './http-transport.js';

/**
 * An upstream on 127.0.0.1 that hands each request's JSON body and headers to `respond`, and a
 * transport to it sending `headers`; both stopped when the test ends.
 */
async function upstreamWith(
  respond: (
    body: { id: string },
    headers: Record<string, unknown>,
    response: ServerResponse,
  ) => void,
  headers: Record<string, string> = {},
) {
  const server = createServer((request, response) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      text += chunk;
    });
    request.on('end', () => respond(JSON.parse(text) as { id: string }, request.headers, response));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const dispatcher = new Agent();
  const transport = new UpstreamHttpTransport({
    url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`),
    dispatcher,
    headers,
    maxBytes: 4096,
  });
  onTestFinished(async () => {
    await transport.close();
    await dispatcher.destroy();
    server.closeAllConnections();
    server.close();
  });
  return transport;
}

/**
 * An upstream on 127.0.0.1 that answers every request with an empty result, and what it got; with
 * `streamed`, as an event stream that first sends a log line.
 */
async function recordingUpstream(streamed = false) {
  const received: { body: unknown; headers: Record<string, unknown> }[] = [];
  const transport = await upstreamWith(
    (body, headers, response) => {
      received.push({ body, headers });
      const answer = JSON.stringify({ jsonrpc: '2.0', id: body.id, result: { content: [] } });
      if (!streamed) {
        response.setHeader('content-type', 'application/json');
        response.end(answer);
        return;
      }
      const log = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info' } };
      response.setHeader('content-type', 'text/event-stream');
      response.end(
        `event: message\ndata: ${JSON.stringify(log)}\n\nevent: message\ndata: ${answer}\n\n`,
      );
    },
    { authorization: 'Bearer k' },
  );
  return { transport, received };
}

// Issue 37: a call's `_meta` envelope is written to JSON once per envelope, not per call.
it('sends each call as its JSON-RPC request, the envelope as it is now, even after it changes', async () => {
  const { transport, received } = await recordingUpstream();
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': { sampling: {} },
  };
  const signal = new AbortController().signal;
  const calls = [
    { name: 'echo', arguments: { text: 'a "quoted" \u2028 line' }, _meta: envelope },
    { name: 'echo', arguments: {}, _meta: envelope },
    { name: 'other', _meta: { ...envelope, 'io.modelcontextprotocol/protocolVersion': 'next' } },
    { _meta: envelope },
    { name: 'plain', arguments: { n: 1 } },
  ];
  for (const params of calls) {
    expect(await transport.call('tools/call', params, stopOf(signal))).toMatchObject({
      result: { content: [] },
    });
  }
  expect(received.map((one) => one.body)).toEqual(
    calls.map((params, index) => ({
      jsonrpc: '2.0',
      id: `gw-${index + 1}`,
      method: 'tools/call',
      params,
    })),
  );
  expect(received[2]?.headers).toMatchObject({
    'mcp-protocol-version': 'next',
    'mcp-method': 'tools/call',
    'mcp-name': 'other',
    authorization: 'Bearer k',
  });
});

// Issue 37: a call enters its context (where the upstream's messages find their call) only for
// what goes to the SDK client, not on every call.
it("hands what a call's stream carries besides its answer to the SDK client in the call's frame", async () => {
  const context = new AsyncLocalStorage<string>();
  const frame = <T>(work: () => T): T => context.run('the call', work);
  const stop = stopOf(new AbortController().signal);
  for (const streamed of [true, false]) {
    const { transport } = await recordingUpstream(streamed);
    const heard: (string | undefined)[] = [];
    transport.onmessage = () => heard.push(context.getStore());
    const answer = await transport.call('tools/call', { name: 'echo' }, stop, frame);
    expect(answer).toMatchObject({ result: { content: [] } });
    expect(heard).toEqual(streamed ? ['the call'] : []);
  }
});

it('sends nothing for a call stopped before it is sent, and fails it with the reason', async () => {
  const { transport, received } = await recordingUpstream();
  const controller = new AbortController();
  const reason = new Error('stopped first');
  controller.abort(reason);
  await expect(
    transport.call('tools/call', { name: 'echo' }, stopOf(controller.signal)),
  ).rejects.toBe(reason);
  expect(received).toEqual([]);
});

// Issue 37: a plain call's headers and body are made once per tool of the envelope; they go out as
// any request's would, and a call that is not plain, or a transport with a session, goes the
// general way.
it("sends a plain call's headers and body as any request's, per tool, and with a session the session's", async () => {
  const { transport, received } = await recordingUpstream();
  const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };
  const stop = stopOf(new AbortController().signal);
  const names = ['echo', 'échø', ' padded', 'echo'];
  for (const name of names) {
    await transport.call('tools/call', { name, arguments: { n: name }, _meta: envelope }, stop);
  }
  // The same request through `send`, which every request of the SDK client takes.
  await transport.send({
    jsonrpc: '2.0',
    id: 'sdk-1',
    method: 'tools/call',
    params: { name: 'échø', arguments: { n: 'échø' }, _meta: envelope },
  });
  const [first, second, third, fourth, bySend] = received;
  expect(received.map((one) => one.body)).toEqual([
    ...names.map((name, index) => ({
      jsonrpc: '2.0',
      id: `gw-${index + 1}`,
      method: 'tools/call',
      params: { name, arguments: { n: name }, _meta: envelope },
    })),
    expect.objectContaining({ id: 'sdk-1' }),
  ]);
  const sameHeaders = (headers: Record<string, unknown> | undefined) => {
    const { host: _host, 'content-length': _length, ...rest } = headers ?? {};
    return rest;
  };
  expect(sameHeaders(second?.headers)).toEqual(sameHeaders(bySend?.headers));
  expect(first?.headers).toMatchObject({
    authorization: 'Bearer k',
    accept: 'application/json, text/event-stream',
    'content-type': 'application/json',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': 'echo',
  });
  expect(second?.headers['mcp-name']).toBe(`=?base64?${Buffer.from('échø').toString('base64')}?=`);
  expect(third?.headers['mcp-name']).toMatch(/^=\?base64\?/);
  expect(fourth?.headers['mcp-name']).toBe('echo');

  // Once the upstream named a session, every request carries it.
  transport.sessionId = 'session-1';
  await transport.call('tools/call', { name: 'echo', arguments: {}, _meta: envelope }, stop);
  expect(received.at(-1)?.headers).toMatchObject({
    'mcp-session-id': 'session-1',
    'mcp-name': 'echo',
  });
});

it('sends the plain calls of many tools each with its own name', async () => {
  const { transport, received } = await recordingUpstream();
  const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };
  const stop = stopOf(new AbortController().signal);
  const names = Array.from({ length: 300 }, (_, index) => `tool-${index}`);
  for (const name of [...names, 'tool-0']) {
    await transport.call('tools/call', { name, arguments: {}, _meta: envelope }, stop);
  }
  expect(received.map((one) => one.headers['mcp-name'])).toEqual([...names, 'tool-0']);
  expect(received.map((one) => (one.body as { params: { name: string } }).params.name)).toEqual([
    ...names,
    'tool-0',
  ]);
});

it('refuses a plain call on a closed transport without sending it', async () => {
  const { transport, received } = await recordingUpstream();
  const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };
  await transport.close();
  await expect(
    transport.call(
      'tools/call',
      { name: 'echo', arguments: {}, _meta: envelope },
      stopOf(new AbortController().signal),
    ),
  ).rejects.toBeDefined();
  expect(received).toEqual([]);
});

/** An upstream on 127.0.0.1 that answers each request with `answer(id)`: status, type and body. */
function answeringUpstream(answer: (id: string) => [number, string, string]) {
  return upstreamWith((body, _headers, response) => {
    const [status, type, text] = answer(body.id);
    response.writeHead(status, { 'content-type': type });
    response.end(text);
  });
}

// Issue 37: a plain call takes its answer without waiting for it by id, whatever carries it.
it("takes a plain call's answer from a refusal, a batch or a stream, and refuses another request's", async () => {
  const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };
  const params = { name: 'echo', arguments: {}, _meta: envelope };
  const stop = stopOf(new AbortController().signal);
  const result = (id: string) => ({ jsonrpc: '2.0', id, result: { content: [] } });
  const note = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info' } };
  const ways: [string, (id: string) => [number, string, string]][] = [
    [
      'refusal',
      (id) => [
        400,
        'application/json',
        JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32602, message: 'no' } }),
      ],
    ],
    [
      'batch',
      (id) => [200, 'application/json', JSON.stringify([note, result('other'), result(id)])],
    ],
    [
      'stream',
      (id) => [
        200,
        'text/event-stream',
        `event: message\ndata: ${JSON.stringify(note)}\n\nevent: message\ndata: ${JSON.stringify(result(id))}\n\n`,
      ],
    ],
  ];
  for (const [way, answer] of ways) {
    const transport = await answeringUpstream(answer);
    const heard: unknown[] = [];
    transport.onmessage = (message) => heard.push(message);
    const got = await transport.call('tools/call', params, stop);
    expect(got, way).toMatchObject(
      way === 'refusal' ? { id: 'gw-1', error: { code: -32602 } } : result('gw-1'),
    );
    expect(heard, way).toEqual(way === 'refusal' ? [] : [note]);
  }
  const wrong = await answeringUpstream(() => [
    200,
    'application/json',
    JSON.stringify(result('x')),
  ]);
  await expect(wrong.call('tools/call', params, stop)).rejects.toThrow(/another request/);
  const deep = await answeringUpstream(() => [
    200,
    'application/json',
    `{"jsonrpc":"2.0","id":"gw-1","result":{"content":[],"x":${'['.repeat(120)}${']'.repeat(120)}}}`,
  ]);
  await expect(deep.call('tools/call', params, stop)).rejects.toThrow(/nested more than 100/);
});
