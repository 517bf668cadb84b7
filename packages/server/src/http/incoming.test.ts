import { once } from 'node:events';
import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Hono } from 'hono';
import { describe, expect, it, onTestFinished } from 'vitest';
import { GatewayResponse } from './gateway-response.js';
import { bufferedBodyOf, incomingOf, takeBufferedBody } from './incoming.js';
import { serve } from './node-adapter/index.js';

/** What the route saw: whether the body was taken from the buffer, and the body it read. */
interface Seen {
  taken: boolean;
  text: string;
  /** What `bufferedBodyOf` answered at once, as text, (before `text()`), and the body's use after. */
  atOnce?: string | undefined;
  usedAfter?: boolean;
}

/** Node's messages the routes read, each ended or waiting for its end. */
const messageEnds: Promise<unknown>[] = [];

/**
 * A server on 127.0.0.1 whose route calls `arrived` (if given), then, after an `await` as the
 * gateway's MCP route does (the token's lookup), hands the buffered body over and reads it.
 */
async function startServer(arrived?: () => void, atOnce = false) {
  const seen: Seen[] = [];
  const app = new Hono();
  app.post('/', async (c) => {
    arrived?.();
    await Promise.resolve();
    const incoming = incomingOf(c);
    const taken =
      incoming !== undefined && takeBufferedBody(incoming, Number(c.req.header('content-length')));
    if (atOnce) {
      const given = bufferedBodyOf(c.req.raw)?.toString();
      const usedAfter = c.req.raw.bodyUsed;
      // Read once: text() after it refuses as after any read.
      const again = await c.req.raw.text().then(
        () => 'read twice',
        (error: Error) => error.name,
      );
      seen.push({ taken, text: again, atOnce: given, usedAfter });
      return c.text(given ?? '');
    }
    const text = await c.req.raw.text();
    seen.push({ taken, text });
    if (incoming !== undefined && !incoming.readableEnded) messageEnds.push(once(incoming, 'end'));
    return c.text(text);
  });
  const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }) as Server;
  await once(server, 'listening');
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, seen };
}

/** POSTs `parts` of a body of declared length, each after `before(i)` resolves; the answer's text. */
function post(url: string, parts: string[], before: (i: number) => Promise<void>) {
  return new Promise<string>((resolve, reject) => {
    const length = Buffer.byteLength(parts.join(''));
    const req = httpRequest(
      url,
      { method: 'POST', headers: { 'content-type': 'text/plain', 'content-length': length } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve(text));
      },
    );
    req.on('error', reject);
    void (async () => {
      for (const [i, part] of parts.entries()) {
        await before(i);
        req.write(part);
      }
      req.end();
    })();
  });
}

describe('bufferedBodyOf', () => {
  it('answers a body taken from the buffer at once, marking it read (issue 37)', async () => {
    const server = await startServer(undefined, true);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', text: 'héllo' });
    expect(await post(server.url, [body], async () => {})).toBe(body);
    expect(server.seen).toEqual([
      { taken: true, atOnce: body, usedAfter: true, text: 'TypeError' },
    ]);
    await Promise.all(messageEnds.splice(0));
  });

  it('answers nothing, reading nothing, for a body not in the buffer or a request made in process', async () => {
    const inProcess = new Request('http://127.0.0.1/', { method: 'POST', body: 'x' });
    expect(bufferedBodyOf(inProcess)).toBeUndefined();
    expect(inProcess.bodyUsed).toBe(false);
    // The body's second half comes after the route looked: nothing taken, nothing answered.
    let arrived = () => {};
    const late = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const server = await startServer(() => arrived(), true);
    expect(await post(server.url, ['{"a":', '1}'], async (i) => (i === 1 ? late : undefined))).toBe(
      '',
    );
    expect(server.seen).toMatchObject([{ taken: false, atOnce: undefined, usedAfter: false }]);
  });
});

describe('takeBufferedBody', () => {
  it('hands a body that came whole with its head to the adapter, which reads it from there', async () => {
    const server = await startServer();
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', text: 'héllo' });
    expect(await post(server.url, [body], async () => {})).toBe(body);
    expect(server.seen).toEqual([{ taken: true, text: body }]);
    // Ended as after the adapter's own read, so the adapter has nothing to drain.
    await Promise.all(messageEnds.splice(0));
  });

  it('leaves a body still arriving to the adapter, which reads all of it', async () => {
    let arrived!: () => void;
    const routeRan = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const server = await startServer(arrived);
    const body = `{"first":"${'a'.repeat(100)}","second":"${'b'.repeat(100)}"}`;
    const parts = [body.slice(0, 120), body.slice(120)];
    // The second part goes out only once the route is running.
    expect(await post(server.url, parts, (i) => (i === 0 ? Promise.resolve() : routeRan))).toBe(
      body,
    );
    expect(server.seen).toEqual([{ taken: false, text: body }]);
  });

  it("ends the message after the answer went out when given the response's afterSent (issue 37)", async () => {
    const seen: { endedBeforeAnswer: boolean; endedAtClose: boolean; endedAfter: Promise<void> }[] =
      [];
    const app = new Hono();
    app.post('/', async (c) => {
      await Promise.resolve();
      const incoming = incomingOf(c);
      const outgoing = (c.env as { outgoing: GatewayResponse }).outgoing;
      if (incoming === undefined) throw new Error('no message');
      const length = Number(c.req.header('content-length'));
      expect(takeBufferedBody(incoming, length, (work) => outgoing.afterSent(work))).toBe(true);
      const text = await c.req.raw.text();
      // As the gateway's answer waits for its record's journal line: the parser has marked the
      // message complete by then.
      await new Promise(setImmediate);
      expect(incoming.complete).toBe(true);
      const entry = {
        endedBeforeAnswer: incoming.readableEnded,
        endedAtClose: false,
        endedAfter: once(incoming, 'end').then(() => {}),
      };
      // What the adapter looks at when the answer is done: a message not ended is drained.
      outgoing.once('close', () => {
        entry.endedAtClose = incoming.readableEnded;
      });
      seen.push(entry);
      return c.text(text);
    });
    const server = serve({
      fetch: app.fetch,
      hostname: '127.0.0.1',
      port: 0,
      serverOptions: { ServerResponse: GatewayResponse },
    }) as Server;
    await once(server, 'listening');
    onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const { port } = server.address() as AddressInfo;
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(await post(`http://127.0.0.1:${port}/`, [body], async () => {})).toBe(body);
    expect(seen).toHaveLength(1);
    const [entry] = seen;
    // Not ended while the answer is made; ended once it went out, before the adapter looks (so
    // it has nothing to drain).
    expect(entry?.endedBeforeAnswer).toBe(false);
    await entry?.endedAfter;
    expect(entry?.endedAtClose).toBe(true);
  });

  it('is undefined for a request handed over in process', async () => {
    const app = new Hono();
    app.get('/', (c) => c.text(String(incomingOf(c))));
    expect(await (await app.request('/')).text()).toBe('undefined');
  });
});
