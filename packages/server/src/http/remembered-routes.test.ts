import { Hono } from 'hono';
import { RegExpRouter } from 'hono/router/reg-exp-router';
import { SmartRouter } from 'hono/router/smart-router';
import { TrieRouter } from 'hono/router/trie-router';
import { describe, expect, it } from 'vitest';
import { startMcpGateway } from '#test/mcp/mcp-test-kit.js';
import { RememberedRoutes, rememberedTrieRouter } from './remembered-routes.js';

/** Hono's default router, remembered: the `RegExpRouter`'s answers when it takes the routes. */
function rememberedDefaultRouter<T>(): RememberedRoutes<T> {
  return new RememberedRoutes(
    new SmartRouter<T>({ routers: [new RegExpRouter<T>(), new TrieRouter<T>()] }),
  );
}

/** Hono's TrieRouter, counting the matches it is asked for. */
class CountingTrieRouter<T> extends TrieRouter<T> {
  matches = 0;
  override match(method: string, path: string) {
    this.matches += 1;
    return super.match(method, path);
  }
}

/** An app with a static segment beside a parameter, the shape that makes Hono use its trie. */
function appWith(router: RememberedRoutes<never>) {
  const app = new Hono({ router: router as never });
  app.use('/api/*', async (c, next) => {
    await next();
    c.header('x-api', '1');
  });
  app.get('/api/things/mine', (c) => c.text('mine'));
  app.get('/api/things/:id', (c) => c.text(`thing ${c.req.param('id')}`));
  app.post('/mcp', (c) => c.text('mcp'));
  app.get('/files/*', (c) => c.text(`file ${c.req.path}`));
  return app;
}

/** The requests every remembering router answers as Hono's own would, asked twice. */
async function answersEveryRequest(app: ReturnType<typeof appWith>) {
  for (let round = 0; round < 2; round += 1) {
    const a = await app.request('/api/things/a');
    expect(await a.text()).toBe('thing a');
    expect(a.headers.get('x-api')).toBe('1');
    expect(await (await app.request('/api/things/b%20c')).text()).toBe('thing b c');
    expect(await (await app.request('/api/things/mine')).text()).toBe('mine');
    expect(await (await app.request('/mcp', { method: 'POST' })).text()).toBe('mcp');
    expect((await app.request('/mcp')).status).toBe(404);
    expect(await (await app.request('/files/x/y')).text()).toBe('file /files/x/y');
    expect((await app.request('/nowhere')).status).toBe(404);
  }
}

describe('RememberedRoutes (issue 37)', () => {
  it('answers every request as the router it wraps, each path with its own parameters', async () => {
    for (const router of [rememberedDefaultRouter<never>(), rememberedTrieRouter<never>()]) {
      await answersEveryRequest(appWith(router));
    }
  });

  it('asks the router it wraps once per method and path', async () => {
    const trie = new CountingTrieRouter<never>();
    const app = appWith(new RememberedRoutes(trie));
    for (let call = 0; call < 5; call += 1) {
      expect(await (await app.request('/mcp', { method: 'POST' })).text()).toBe('mcp');
    }
    expect(trie.matches).toBe(1);
    await app.request('/mcp');
    await app.request('/api/things/a');
    expect(trie.matches).toBe(3);
  });

  it('forgets its answers when a route is added', async () => {
    const trie = new CountingTrieRouter<never>();
    const router = new RememberedRoutes(trie);
    const app = appWith(router);
    expect((await app.request('/later')).status).toBe(404);
    app.get('/later', (c) => c.text('later'));
    expect(router.remembered).toBe(0);
    expect(await (await app.request('/later')).text()).toBe('later');
  });

  it('keeps a bounded number of paths, and none too long', async () => {
    const trie = new CountingTrieRouter<never>();
    const router = new RememberedRoutes(trie, { paths: 8, pathLength: 40 });
    const app = appWith(router);
    const long = `/r/${'x'.repeat(60)}`;
    for (let id = 0; id < 100; id += 1) app.get(`/r/${id}`, (c) => c.text(`r ${id}`));
    app.get(long, (c) => c.text('long'));
    for (let id = 0; id < 100; id += 1) {
      expect(await (await app.request(`/r/${id}`)).text()).toBe(`r ${id}`);
    }
    expect(router.remembered).toBe(8);
    // The newest stay: the last path is answered without asking the trie again.
    const before = trie.matches;
    await app.request('/r/99');
    expect(trie.matches).toBe(before);
    await app.request(long);
    await app.request(long);
    expect(trie.matches).toBe(before + 2);
    expect(router.remembered).toBe(8);
  });

  it('keeps no path only wildcards matched: a client makes those up, a token in them too', async () => {
    for (const inner of [new CountingTrieRouter<never>(), null]) {
      const router = inner ? new RememberedRoutes(inner) : rememberedDefaultRouter<never>();
      const app = appWith(router);
      app.post('/mcp/:token', (c) => c.text('token'));
      const secret = 'gw_live_0123456789abcdef';
      for (const path of [`/mcp/${secret}/`, `/mcp/${secret}/x`, `/nowhere/${secret}`]) {
        expect((await app.request(path, { method: 'POST' })).status).toBe(404);
      }
      expect(await (await app.request(`/files/${secret}`)).text()).toBe(`file /files/${secret}`);
      expect(router.remembered).toBe(0);
      expect(await (await app.request('/mcp', { method: 'POST' })).text()).toBe('mcp');
      expect(router.remembered).toBe(1);
    }
  });

  it('never keeps a path a parameter took its value from: it may be a token (/mcp/:token)', async () => {
    for (const inner of [new CountingTrieRouter<never>(), null]) {
      const router = inner ? new RememberedRoutes(inner) : rememberedDefaultRouter<never>();
      const app = new Hono({ router: router as never });
      app.post('/mcp', (c) => c.text('mcp'));
      app.post('/mcp/:token', (c) => c.text(`token ${c.req.param('token').length}`));
      const secret = 'gw_live_0123456789abcdef';
      expect(await (await app.request(`/mcp/${secret}`, { method: 'POST' })).text()).toBe(
        `token ${secret.length}`,
      );
      expect(router.remembered).toBe(0);
      expect(await (await app.request('/mcp', { method: 'POST' })).text()).toBe('mcp');
      expect(router.remembered).toBe(1);
      expect(await (await app.request(`/mcp/${secret}x`, { method: 'POST' })).text()).toBe(
        `token ${secret.length + 1}`,
      );
      expect(router.remembered).toBe(1);
    }
  });

  it('keeps no MCP token a client sent in a path the gateway has no route for', async () => {
    const mcp = await startMcpGateway();
    const { mcpToken } = await mcp.user();
    const router = mcp.gateway.app.router as RememberedRoutes<unknown>;
    const post = (path: string) =>
      fetch(`${mcp.url}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      });
    expect((await post(`/mcp/${mcpToken}`)).status).toBe(200);
    const kept = router.remembered;
    for (const path of [`/mcp/${mcpToken}/`, `/mcp/${mcpToken}/x`, `/MCP/${mcpToken}`]) {
      expect((await post(path)).status).toBe(404);
    }
    expect(router.remembered).toBe(kept);
  });
});
