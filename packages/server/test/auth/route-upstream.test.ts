import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { routeUpstream } from './route-upstream.js';

const SLOTS = [Symbol.for('undici.globalDispatcher.2'), Symbol.for('undici.globalDispatcher.1')];
const dispatchers = () => SLOTS.map((slot) => Reflect.get(globalThis, slot));
// Taken after route-upstream (and so undici) is loaded, before any test routes anything.
const untouched = dispatchers();

/** A local server that answers every request with what it received. */
async function echoServer(): Promise<{ origin: string; received: IncomingMessage[] }> {
  const received: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    received.push(req);
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({ method: req.method, url: req.url, body, auth: req.headers.authorization }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, received };
}

describe('routeUpstream', () => {
  it("sends a public origin's requests to the local server, with method, path, query, headers and body unchanged", async () => {
    const local = await echoServer();
    const routing = routeUpstream({ 'https://api.github.com': local.origin });

    const response = await fetch('https://api.github.com/user/emails?per_page=100', {
      method: 'POST',
      headers: { authorization: 'Bearer gho_test', 'content-type': 'text/plain' },
      body: 'hello',
    });

    expect(await response.json()).toEqual({
      method: 'POST',
      url: '/user/emails?per_page=100',
      body: 'hello',
      auth: 'Bearer gho_test',
    });
    expect(routing.requests).toEqual([
      { method: 'POST', url: 'https://api.github.com/user/emails?per_page=100', to: local.origin },
    ]);
  });

  it('lets loopback requests through and refuses other origins at once', async () => {
    const local = await echoServer();
    routeUpstream({ 'https://discord.com': local.origin });

    expect((await fetch(`${local.origin}/direct`)).status).toBe(200);
    const error = await fetch('https://example.com/').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(String((error as TypeError).cause)).toContain('no route for https://example.com');
  });

  it('adds to the same routing when called twice in one test', async () => {
    const one = await echoServer();
    const two = await echoServer();
    const first = routeUpstream({ 'https://github.com': one.origin });
    const second = routeUpstream({ 'https://discord.com': two.origin });

    await fetch('https://github.com/login/oauth/access_token', { method: 'POST' });
    await fetch('https://discord.com/api/users/@me');

    expect(second).toBe(first);
    expect(one.received.map((req) => req.url)).toEqual(['/login/oauth/access_token']);
    expect(two.received.map((req) => req.url)).toEqual(['/api/users/@me']);
  });

  it('puts the previous dispatchers back on restore', async () => {
    const local = await echoServer();
    const routing = routeUpstream({ 'https://oauth2.googleapis.com': local.origin });
    expect(dispatchers()).not.toEqual(untouched);

    routing.restore();

    expect(dispatchers()).toEqual(untouched);
    expect(dispatchers()[0]).toBe(untouched[0]);
    expect(dispatchers()[1]).toBe(untouched[1]);
  });

  it('leaves nothing routed after the tests that routed (they restore when they end)', () => {
    expect(dispatchers()[0]).toBe(untouched[0]);
    expect(dispatchers()[1]).toBe(untouched[1]);
  });

  it('accepts bare origins only', () => {
    expect(() => routeUpstream({ 'https://github.com/login': 'http://127.0.0.1:1' })).toThrow(
      'route origins only',
    );
  });
});
