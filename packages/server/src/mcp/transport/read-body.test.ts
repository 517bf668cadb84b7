import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { startMcpGateway } from '#test/mcp/mcp-test-kit.js';
import { readBody } from './read-body.js';

const LIMIT = 64;

function post(
  body: string | Uint8Array | ReadableStream<Uint8Array>,
  headers: Record<string, string> = {},
) {
  // A streamed body needs `duplex`, which the DOM typings do not list yet.
  const init: RequestInit & { duplex?: 'half' } = { method: 'POST', headers, body };
  if (body instanceof ReadableStream) init.duplex = 'half';
  return new Request('http://127.0.0.1/mcp', init);
}

function chunks(...parts: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const part of parts) {
        controller.enqueue(typeof part === 'string' ? new TextEncoder().encode(part) : part);
      }
      controller.close();
    },
  });
}

/** A JSON-RPC ping whose `padding` string holds `bytes` as they are (invalid UTF-8 if so). */
function pingWith(bytes: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"padding":"'),
    bytes,
    Buffer.from('"}}'),
  ]);
}

/**
 * POSTs `body` to the endpoint with its `Content-Length`, the first `split` bytes in one write and
 * the rest once the server has answered nothing yet: the rest is not in Node's buffer when the
 * route reads, so the body is read in pieces, not taken whole from the buffer.
 */
async function postRaw(url: string, token: string, body: Buffer, split = body.length) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': String(body.length),
        },
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (part: Buffer) => parts.push(part));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString() }),
        );
      },
    );
    req.on('error', reject);
    req.write(body.subarray(0, split));
    req.end(body.subarray(split));
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

  // Issue 38: the limit is on the bytes received, not on the decoded text, where each invalid
  // byte became U+FFFD (three bytes) and a body under the limit was answered 413.
  it('counts the bytes received, so an invalid UTF-8 body under the limit is not too large', async () => {
    const invalid = Buffer.alloc(30, 0xff);
    expect(await readBody(post(invalid, { 'content-length': '30' }), LIMIT)).toEqual({
      tooLarge: false,
      notUtf8: true,
    });
    expect(await readBody(post(chunks(invalid, invalid.subarray(0, 20))), LIMIT)).toEqual({
      tooLarge: false,
      notUtf8: true,
    });
    expect(await readBody(post(chunks(invalid, invalid, invalid)), LIMIT)).toEqual({
      tooLarge: true,
    });
  });

  it('reads a multi-byte character split between chunks', async () => {
    const euro = new TextEncoder().encode('"€"');
    expect(await readBody(post(chunks(euro.subarray(0, 2), euro.subarray(2))), LIMIT)).toEqual({
      tooLarge: false,
      text: '"€"',
    });
  });

  it('answers 400 Parse error, not 413, to an invalid UTF-8 body under the limit on a live endpoint', async () => {
    const gw = await startMcpGateway();
    const alice = await gw.user();
    // 700,000 bytes, under the 1 MiB limit; decoded, 2.1 MB. Sent in pieces, read in pieces.
    const body = pingWith(Buffer.alloc(700_000, 0xff));
    const answer = await postRaw(`${gw.url}/mcp`, alice.mcpToken, body, 1000);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error: the body is not valid UTF-8' },
    });
    // The same body's bytes in valid UTF-8, for comparison, is answered.
    const valid = await postRaw(
      `${gw.url}/mcp`,
      alice.mcpToken,
      pingWith(Buffer.alloc(700_000, 0x78)),
      1000,
    );
    expect(valid.status).toBe(200);
  });

  it('refuses a small body whole in the buffer with an invalid UTF-8 byte in a string', async () => {
    const gw = await startMcpGateway();
    const alice = await gw.user();
    // Decoded leniently, the byte became U+FFFD and the request was answered as if sent so.
    const answer = await postRaw(`${gw.url}/mcp`, alice.mcpToken, pingWith(Buffer.from([0xc3])));
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('not valid UTF-8');
    const ok = await postRaw(`${gw.url}/mcp`, alice.mcpToken, pingWith(Buffer.from('é')));
    expect(ok.status).toBe(200);
  });
});
