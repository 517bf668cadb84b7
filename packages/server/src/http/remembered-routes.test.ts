import { Hono } from 'hono';
import { RegExpRouter } from 'hono/router/reg-exp-router';
import { SmartRouter } from 'hono/router/smart-router';
import { TrieRouter } from 'hono/router/trie-router';
import { describe, expect, it } from 'vitest';
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
    for (let id = 0; id < 100; id += 1) {
      expect(await (await app.request(`/files/${id}`)).text()).toBe(`file /files/${id}`);
    }
    expect(router.remembered).toBe(8);
    // The newest stay: the last path is answered without asking the trie again.
    const before = trie.matches;
    await app.request('/files/99');
    expect(trie.matches).toBe(before);
    const long = `/files/${'x'.repeat(60)}`;
    await app.request(long);
    await app.request(long);
    expect(trie.matches).toBe(before + 2);
    expect(router.remembered).toBe(8);
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
});
