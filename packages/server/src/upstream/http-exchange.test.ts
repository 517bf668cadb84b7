import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createNetServer, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { Agent } from 'undici';
import { describe, expect, it, onTestFinished } from 'vitest';
import { stopOf } from './abort-signals.js';
import { type Exchange, exchange, InFlight } from './http-exchange.js';

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
  const inFlight = new InFlight();
  const send = (path = '/mcp', signal?: AbortSignal, sent?: () => void) =>
    exchange(
      agent,
      { origin, path, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' },
      { json: 64, error: 16 },
      signal === undefined ? undefined : stopOf(signal),
      inFlight,
      sent,
    );
  return { send, connections, inFlight };
}

describe('exchange', () => {
  it('tells `sent` once its request is written, before the answer, and once when it fails first (issue 37)', async () => {
    const order: string[] = [];
    const { send } = await upstream((response) => {
      order.push('received');
      response.setHeader('content-type', 'application/json');
      response.end('{"jsonrpc":"2.0","id":1,"result":{}}');
    });
    // A new connection, then a kept-alive one (undici writes on it from the check phase).
    for (let i = 0; i < 2; i++) {
      order.length = 0;
      const answering = send('/mcp', undefined, () => order.push('sent'));
      order.push('dispatched');
      await answering;
      order.push('answered');
      expect(order).toEqual(['dispatched', 'sent', 'received', 'answered']);
      await new Promise((resolve) => setImmediate(resolve));
    }

    // Refused at connect (nothing listens on the port): told once, as the exchange fails.
    const closed = createNetServer().listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    await once(closed, 'close');
    const agent = new Agent();
    onTestFinished(() => agent.destroy());
    let told = 0;
    const request = { origin: `http://127.0.0.1:${port}`, path: '/', method: 'POST' as const };
    await expect(
      exchange(
        agent,
        { ...request, headers: {} },
        { json: 64, error: 16 },
        undefined,
        new InFlight(),
        () => {
          told += 1;
        },
      ),
    ).rejects.toThrow();
    expect(told).toBe(1);
  });

  it('keeps a request whose `sent` throws: undici never sees the throw, the answer comes (issue 37)', async () => {
    let received = 0;
    const { send } = await upstream((response) => {
      received += 1;
      response.setHeader('content-type', 'application/json');
      response.end('{"jsonrpc":"2.0","id":1,"result":{}}');
    });
    // A new connection, then a kept-alive one.
    for (let i = 0; i < 2; i++) {
      const answer = await send('/mcp', undefined, () => {
        throw new Error('put-off work failed');
      });
      expect(answer).toMatchObject({ statusCode: 200, whole: true });
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(received).toBe(2);
  });
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
    inFlight.abortAll(new Error('transport closed'));
    await expect(sent).rejects.toThrow('transport closed');
    expect(inFlight.size).toBe(0);
  });
});

/**
 * A hostile upstream on 127.0.0.1 speaking raw bytes: `answer(socket, index)` is called once per
 * request head it reads (index counting the requests of all connections), and writes what it likes.
 */
async function rawUpstream(answer: (socket: Socket, index: number) => void) {
  let index = 0;
  const sockets = new Set<Socket>();
  const closed: Promise<void>[] = [];
  const server = createNetServer((socket) => {
    sockets.add(socket);
    closed.push(new Promise((resolve) => socket.once('close', () => resolve())));
    socket.on('error', () => {});
    let pending = '';
    socket.on('data', (chunk: Buffer) => {
      pending += chunk.toString('latin1');
      // Each request carries `{}` after its head (as `send` posts it).
      for (
        let end = pending.indexOf('\r\n\r\n{}');
        end !== -1;
        end = pending.indexOf('\r\n\r\n{}')
      ) {
        pending = pending.slice(end + 6);
        answer(socket, index++);
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const agent = new Agent();
  onTestFinished(async () => {
    await agent.destroy();
    for (const socket of sockets) socket.destroy();
    server.close();
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const inFlight = new InFlight();
  const send = (signal?: AbortSignal) =>
    exchange(
      agent,
      {
        origin,
        path: '/mcp',
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      },
      { json: 1024, error: 256 },
      signal === undefined ? undefined : stopOf(signal),
      inFlight,
    );
  return { send, inFlight, sockets, closed };
}

const JSON_HEAD = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n';

describe('exchange with a hostile upstream', () => {
  it('never hands bytes past one answer to the next request on the connection', async () => {
    const { send, inFlight } = await rawUpstream((socket, index) => {
      if (index === 0) {
        // A second, unasked answer smuggled after the first's declared length.
        const smuggled = `${JSON_HEAD}Content-Length: 12\r\n\r\n{"smuggled"}`;
        socket.write(`${JSON_HEAD}Content-Length: 7\r\n\r\n{"a":1}${smuggled}`);
      } else {
        socket.write(`${JSON_HEAD}Content-Length: 7\r\n\r\n{"b":2}`);
      }
    });
    const first = await send();
    expect(first).toMatchObject({ statusCode: 200, whole: true, text: '{"a":1}' });
    await new Promise((resolve) => setImmediate(resolve));
    // The next request is answered by the upstream, or fails: never with the smuggled answer.
    const second = await send().then(
      (answer) => (answer.whole ? answer.text : 'stream'),
      (error: unknown) => (error instanceof Error ? 'failed' : 'thrown'),
    );
    expect(second).not.toBe('{"smuggled"}');
    expect(['{"b":2}', 'failed']).toContain(second);
    expect(inFlight.size).toBe(0);
  });

  it('fails an answer cut short of its Content-Length, or reset mid-body, and forgets it', async () => {
    const { send, inFlight } = await rawUpstream((socket, index) => {
      socket.write(`${JSON_HEAD}Content-Length: 500\r\n\r\n{"partial":`);
      if (index === 0) socket.end();
      else socket.resetAndDestroy();
    });
    await expect(send()).rejects.toThrow();
    await expect(send()).rejects.toThrow();
    expect(inFlight.size).toBe(0);
  });

  it('stops reading a JSON answer of no declared length at its limit, dropping the connection', async () => {
    const { send, inFlight, closed } = await rawUpstream((socket) => {
      socket.write(`${JSON_HEAD}Transfer-Encoding: chunked\r\n\r\n`);
      const chunk = `"${'x'.repeat(4094)}"`;
      // A megabyte announced a chunk at a time: the gateway stops at its 1 kB limit.
      for (let i = 0; i < 256; i++) socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    });
    expect(await send()).toMatchObject({ statusCode: 200, whole: true, text: undefined });
    await Promise.all(closed);
    expect(inFlight.size).toBe(0);
  });

  it('follows no redirect, and does not decompress what it did not ask to be compressed', async () => {
    const bomb = gzipSync(Buffer.alloc(10_000_000, 0x20));
    const { send } = await rawUpstream((socket, index) => {
      if (index === 0) {
        socket.write(
          'HTTP/1.1 302 Found\r\nLocation: http://169.254.169.254/\r\nContent-Length: 0\r\n\r\n',
        );
      } else {
        socket.write(
          `${JSON_HEAD}Content-Encoding: gzip\r\nContent-Length: ${bomb.length}\r\n\r\n`,
        );
        socket.write(bomb);
      }
    });
    const redirect = await send();
    expect(redirect.statusCode).toBe(302);
    if (!redirect.whole) redirect.body.destroy();
    const zipped = await send();
    // Read as the bytes sent (≈10 kB, past the 1 kB limit), never inflated to 10 MB.
    expect(bomb.length).toBeGreaterThan(1024);
    expect(zipped).toMatchObject({ statusCode: 200, whole: true, text: undefined });
  });

  it('gives invalid UTF-8 in a JSON answer as replacement characters, not a failure', async () => {
    const { send } = await rawUpstream((socket) => {
      socket.write(`${JSON_HEAD}Content-Length: 4\r\n\r\n`);
      socket.write(Buffer.from([0x22, 0xff, 0xfe, 0x22]));
    });
    const answer = await send();
    expect(answer).toMatchObject({ whole: true, text: '"\uFFFD\uFFFD"' });
  });

  it('closes the connection of an endless event stream its reader drops, and forgets it', async () => {
    let dripping: NodeJS.Timeout | undefined;
    onTestFinished(() => clearInterval(dripping));
    const { send, inFlight, closed } = await rawUpstream((socket) => {
      socket.write(
        'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n',
      );
      dripping = setInterval(() => {
        if (!socket.destroyed) socket.write('2\r\n:\n\r\n');
      }, 5);
    });
    const answer = await send();
    if (answer.whole) throw new Error('expected a stream');
    await once(answer.body, 'readable');
    expect(inFlight.size).toBe(1);
    answer.body.destroy();
    await Promise.all(closed);
    expect(inFlight.size).toBe(0);
  });

  it('fails a JSON answer dripped a byte at a time when its signal stops it, closing the connection', async () => {
    let dripping: NodeJS.Timeout | undefined;
    onTestFinished(() => clearInterval(dripping));
    let started: () => void = () => {};
    const begun = new Promise<void>((resolve) => {
      started = resolve;
    });
    const { send, inFlight, closed } = await rawUpstream((socket) => {
      socket.write(`${JSON_HEAD}Transfer-Encoding: chunked\r\n\r\n1\r\n[\r\n`, () => started());
      dripping = setInterval(() => {
        if (!socket.destroyed) socket.write('1\r\n \r\n');
      }, 5);
    });
    const stop = new AbortController();
    const sent = send(stop.signal);
    await begun;
    expect(inFlight.size).toBe(1);
    stop.abort(new Error('call time limit'));
    await expect(sent).rejects.toThrow('call time limit');
    await Promise.all(closed);
    expect(inFlight.size).toBe(0);
  });

  it('fails a request the upstream never answers when its signal stops it, closing the connection', async () => {
    let arrived: () => void = () => {};
    const received = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const { send, inFlight, closed } = await rawUpstream(() => arrived());
    const stop = new AbortController();
    const sent = send(stop.signal);
    await received;
    stop.abort(new Error('call time limit'));
    await expect(sent).rejects.toThrow('call time limit');
    await Promise.all(closed);
    expect(inFlight.size).toBe(0);
  });
});

// Issue 37: the transport's exchanges in flight are a list linked through them, not a `Set`.
describe('InFlight', () => {
  it('keeps what is added until it is deleted, in any order, and stops all that are left', () => {
    const inFlight = new InFlight();
    const made = Array.from({ length: 4 }, () => {
      const one = { previous: undefined, next: undefined, reasons: [] as Error[] };
      return Object.assign(one, { abort: (reason: Error) => one.reasons.push(reason) });
    }) as unknown as (Exchange & { reasons: Error[] })[];
    for (const one of made) inFlight.add(one);
    expect(inFlight.size).toBe(4);
    inFlight.delete(made[2] as Exchange);
    inFlight.delete(made[3] as Exchange);
    inFlight.delete(made[0] as Exchange);
    expect(inFlight.size).toBe(1);
    const reason = new Error('closed');
    inFlight.abortAll(reason);
    expect(made.map((one) => one.reasons)).toEqual([[], [reason], [], []]);
    inFlight.delete(made[1] as Exchange);
    expect(inFlight.size).toBe(0);
    inFlight.abortAll(reason);
    inFlight.add(made[3] as Exchange);
    inFlight.abortAll(reason);
    expect(made.map((one) => one.reasons.length)).toEqual([0, 1, 0, 1]);
  });
});
