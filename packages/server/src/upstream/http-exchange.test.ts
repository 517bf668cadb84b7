import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { describe, expect, it, onTestFinished } from 'vitest';
import { type Exchange, exchange } from './http-exchange.js';

/** A server on 127.0.0.1 answering each request with `answer`, and its undici pool. */
async function upstream(answer: (response: ServerResponse, path: string) => void) {
  const connections = { opened: 0 };
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => answer(response, request.url ?? ''));
  });
  server.on('connection', () => {
    connections.opened += 1;
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const agent = new Agent();
  onTestFinished(async () => {
    await agent.destroy();
    server.closeAllConnections();
    server.close();
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const inFlight = new Set<Exchange>();
  const send = (path = '/mcp', signal?: AbortSignal) =>
    exchange(
      agent,
      { origin, path, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' },
      { json: 64, error: 16 },
      signal,
      inFlight,
    );
  return { send, connections, inFlight };
}

describe('exchange', () => {
  it('reads a JSON answer whole and keeps the connection for the next request', async () => {
    const { send, connections, inFlight } = await upstream((response) => {
      response.setHeader('content-type', 'application/json; charset=utf-8');
      response.end('{"jsonrpc":"2.0","id":1,"result":{}}');
    });
    for (let i = 0; i < 3; i++) {
      const answer = await send();
      expect(answer).toMatchObject({ statusCode: 200, whole: true });
      expect(answer.whole && JSON.parse(answer.text ?? '')).toEqual({
        jsonrpc: '2.0',
        id: 1,
        result: {},
      });
      // undici hands a socket back to its pool after the turn that ends its answer.
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(connections.opened).toBe(1);
    expect(inFlight.size).toBe(0);
  });

  it('gives no text for a body past its limit, a JSON answer or an error, and drops the connection', async () => {
    const { send, connections } = await upstream((response, path) => {
      response.statusCode = path === '/error' ? 500 : 200;
      response.setHeader('content-type', 'application/json');
      response.write(`"${'x'.repeat(40)}`);
      // The rest is never needed: the gateway stops reading at the limit.
      setImmediate(() => response.end(`${'y'.repeat(40)}"`));
    });
    const json = await send();
    expect(json).toMatchObject({ statusCode: 200, whole: true, text: undefined });
    const error = await send('/error');
    expect(error).toMatchObject({ statusCode: 500, whole: true, text: undefined });
    expect(connections.opened).toBe(2);
  });

  it('hands over an event stream, bounded while unread, and stops it on its signal', async () => {
    let held: () => void = () => {};
    const heldBack = new Promise<void>((resolve) => {
      held = resolve;
    });
    const { send, inFlight } = await upstream((response) => {
      response.setHeader('content-type', 'text/event-stream');
      let written = 0;
      const more = () => {
        while (written < 20_000 && response.write(`data: ${'z'.repeat(1000)}\n\n`)) written += 1;
        if (written === 20_000) return;
        response.once('drain', more);
        held();
      };
      more();
    });
    const stop = new AbortController();
    const answer = await send('/mcp', stop.signal);
    if (answer.whole) throw new Error('expected a stream');
    await once(answer.body, 'readable');
    expect(answer.body.read()).toBeInstanceOf(Buffer);
    // Unread, the stream holds what one read brought, not the 20 MB the upstream would send.
    await heldBack;
    expect(answer.body.readableLength).toBeLessThan(1024 * 1024);
    const closed = new Promise((resolve) => answer.body.once('close', resolve));
    answer.body.on('error', () => {});
    stop.abort(new Error('stopped by the caller'));
    await closed;
    expect(answer.body.errored?.message).toBe('stopped by the caller');
    expect(inFlight.size).toBe(0);
  });

  it('fails a request stopped before its answer with the signal’s reason', async () => {
    const { send, inFlight } = await upstream(() => {});
    const stop = new AbortController();
    const sent = send('/mcp', stop.signal);
    stop.abort(new Error('time limit'));
    await expect(sent).rejects.toThrow('time limit');
    const already = new AbortController();
    already.abort(new Error('already stopped'));
    await expect(send('/mcp', already.signal)).rejects.toThrow('already stopped');
    expect(inFlight.size).toBe(0);
  });

  it('is stopped by the transport through the in-flight set', async () => {
    let arrived: () => void = () => {};
    const received = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const { send, inFlight } = await upstream(() => arrived());
    const sent = send();
    await received;
    expect(inFlight.size).toBe(1);
    for (const one of inFlight) one.abort(new Error('transport closed'));
    await expect(sent).rejects.toThrow('transport closed');
    expect(inFlight.size).toBe(0);
  });
});
