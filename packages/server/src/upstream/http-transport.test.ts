import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { expect, it, onTestFinished } from 'vitest';
import { UpstreamHttpTransport } from './http-transport.js';

/** An upstream on 127.0.0.1 that answers every request with an empty result, and what it got. */
async function recordingUpstream() {
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
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ jsonrpc: '2.0', id: body.id, result: { content: [] } }));
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
    expect(await transport.call('tools/call', params, signal)).toMatchObject({
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
