import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { startMcpGateway } from '#test/mcp/mcp-test-kit.js';
import { readBody } from './read-body.js';

const LIMIT = 64;

function post(body: string | ReadableStream<Uint8Array>, headers: Record<string, string> = {}) {
  // A streamed body needs `duplex`, which the DOM typings do not list yet.
  const init: RequestInit & { duplex?: 'half' } = { method: 'POST', headers, body };
  if (typeof body !== 'string') init.duplex = 'half';
  return new Request('http://127.0.0.1/mcp', init);
}

function chunks(...parts: string[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(new TextEncoder().encode(part));
      controller.close();
    },
  });
}

describe('readBody', () => {
  it('reads a body of declared length', async () => {
    expect(await readBody(post('{"a":1}', { 'content-length': '7' }), LIMIT)).toEqual({
      tooLarge: false,
      text: '{"a":1}',
    });
  });

  it('refuses a declared length over the limit without reading the body', async () => {
    const body = post(chunks('x'.repeat(LIMIT + 1)), { 'content-length': String(LIMIT + 1) });
    expect(await readBody(body, LIMIT)).toEqual({ tooLarge: true });
    expect(body.bodyUsed).toBe(false);
  });

  it('refuses a body longer than it declared', async () => {
    expect(await readBody(post('x'.repeat(LIMIT + 1), { 'content-length': '2' }), LIMIT)).toEqual({
      tooLarge: true,
    });
  });

  it('streams a body of undeclared length, up to the limit', async () => {
    expect(await readBody(post(chunks('{"a":', '1}')), LIMIT)).toEqual({
      tooLarge: false,
      text: '{"a":1}',
    });
    expect(await readBody(post(chunks('x'.repeat(40), 'x'.repeat(40))), LIMIT)).toEqual({
      tooLarge: true,
    });
  });

  it('answers 413 to a chunked body over the limit on a live endpoint', async () => {
    const gw = await startMcpGateway({ maxBodyBytes: 2048 });
    const alice = await gw.user();
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        `${gw.url}/mcp`,
        {
          method: 'POST',
          headers: {
            authorization: `Bearer ${alice.mcpToken}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'transfer-encoding': 'chunked',
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.write(`{"jsonrpc":"2.0","id":1,"method":"ping","padding":"`);
      req.write('x'.repeat(4096));
      req.end('"}');
    });
    expect(status).toBe(413);
  });
});
