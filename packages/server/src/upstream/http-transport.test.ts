import { AsyncLocalStorage } from 'node:async_hooks';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { expect, it, onTestFinished } from 'vitest';
import { stopOf } from './abort-signals.js';
import { UpstreamHttpTransport } from './http-transport.js';

/**
 * An upstream on 127.0.0.1 that answers every request with an empty result, and what it got; with
 * `streamed`, as an event stream that first sends a log line.
 */
async function recordingUpstream(streamed = false) {
  const received: { body: unknown; headers: Record<string, unknown> }[] = [];
  const server = createServer((request, response) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      text += chunk;
    });
    request.on('end', () => {
      const body = JSON.parse(text) as { id: string };
      received.push({ body, headers: request.headers });
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
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const dispatcher = new Agent();
  const transport = new UpstreamHttpTransport({
    url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`),
    dispatcher,
    headers: { authorization: 'Bearer k' },
    maxBytes: 4096,
  });
  onTestFinished(async () => {
    await transport.close();
    await dispatcher.destroy();
    server.closeAllConnections();
    server.close();
  });
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
