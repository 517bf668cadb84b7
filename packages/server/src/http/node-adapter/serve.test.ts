/**
 * The gateway's node adapter (issue 37): what a Hono app sees and answers through it, as through
 * `@hono/node-server`, whose core it forks. That a first answer loads no undici is checked on the
 * shipped bundle by start-up.test.ts.
 */
import { once } from 'node:events';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { describe, expect, it, onTestFinished } from 'vitest';
import { serve } from './index.js';
import { nativeWebClasses } from './web-globals.js';

async function served(app: Hono): Promise<string> {
  const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
  await once(server, 'listening');
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** POSTs `parts` without a declared length (chunked); the answer's status and text. */
function postChunked(url: string, parts: string[]) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers: { 'content-type': 'text/plain' } });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    for (const part of parts) req.write(part);
    req.end();
  });
}

describe('node adapter', () => {
  it('hands the app a Request with Headers, and writes a plain answer with its length', async () => {
    const app = new Hono();
    app.get('/plain', (c) =>
      c.json({
        request: c.req.raw instanceof Request,
        headers: c.req.raw.headers instanceof Headers,
        url: c.req.url,
        accept: c.req.header('accept'),
      }),
    );
    const url = await served(app);
    const answer = await fetch(`${url}/plain?q=1`, { headers: { accept: 'application/json' } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.headers.get('content-length')).toBe(String((await answer.clone().text()).length));
    expect(await answer.json()).toEqual({
      request: true,
      headers: true,
      url: `${url}/plain?q=1`,
      accept: 'application/json',
    });
  });

  it('serves a body without a declared length through a Request made from the light one', async () => {
    const app = new Hono();
    // Hono's body limit reads such a body whole, then makes `new Request(c.req.raw, { body })`.
    app.post('/', bodyLimit({ maxSize: 1024 }), async (c) => c.text(await c.req.text()));
    const url = await served(app);
    expect(await postChunked(`${url}/`, ['one ', 'two ', 'three'])).toEqual({
      status: 200,
      text: 'one two three',
    });
  });

  it('writes headers set with c.header, repeated cookies and a streamed body', async () => {
    const app = new Hono();
    app.get('/stream', (c) => {
      c.header('Cache-Control', 'no-store');
      c.header('Set-Cookie', 'a=1', { append: true });
      c.header('Set-Cookie', 'b=2', { append: true });
      const encoder = new TextEncoder();
      const body = new ReadableStream({
        start(controller) {
          controller.enqueue(encoder.encode('first,'));
          setTimeout(() => {
            controller.enqueue(encoder.encode('second'));
            controller.close();
          }, 20);
        },
      });
      return c.body(body, 201);
    });
    app.get('/moved', () => Response.redirect('http://127.0.0.1/elsewhere', 308));
    const url = await served(app);
    const answer = await fetch(`${url}/stream`);
    expect(answer.status).toBe(201);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await answer.text()).toBe('first,second');
    const moved = await fetch(`${url}/moved`, { redirect: 'manual' });
    expect(moved.status).toBe(308);
    expect(moved.headers.get('location')).toBe('http://127.0.0.1/elsewhere');
  });

  it('puts its light Response in the global binding, a Response of Node to instanceof', async () => {
    await served(new Hono());
    const light = new Response('x', { status: 202 });
    // The global object's property is left alone (reading it is what loads Node's undici). Its
    // value is Node's class unless a test file of this worker loaded @hono/node-server, which
    // replaces it: the instanceof is checked against Node's own class.
    expect(Response).not.toBe(globalThis.Response);
    expect(light).toBeInstanceOf(nativeWebClasses().Response);
    expect(light.status).toBe(202);
    expect(await light.text()).toBe('x');
    expect(Response.json({ a: 1 }).headers.get('content-type')).toBe('application/json');
  });
  it('answers 500 when an answer given at once has a head Node refuses, and leaves no call hanging', async () => {
    const app = new Hono();
    // A handler that answers without a promise: the adapter writes its head at once.
    app.get('/bad', () => new Response('x', { headers: { 'x-bad': 'a\u0001b' } }));
    const url = await served(app);
    const errors: unknown[] = [];
    const log = console.error;
    console.error = (error: unknown) => errors.push(error);
    onTestFinished(() => {
      console.error = log;
    });
    const answer = await fetch(`${url}/bad`, { signal: AbortSignal.timeout(3000) });
    expect(answer.status).toBe(500);
    expect(answer.headers.get('x-bad')).toBeNull();
    expect(errors).toHaveLength(1);
  });
});
