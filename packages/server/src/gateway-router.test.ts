import { UnsupportedPathError } from 'hono/router';
import { RegExpRouter } from 'hono/router/reg-exp-router';
import { describe, expect, it } from 'vitest';
import { createTestGateway } from '#test/support/test-gateway.js';

describe("the gateway's router (issue 37)", () => {
  it("is Hono's TrieRouter, since the RegExpRouter refuses the gateway's routes", async () => {
    const gw = await createTestGateway();
    // Hono's default would build the RegExpRouter from every route at the first request, only to
    // fall back to the trie: work before every start's first answer for nothing.
    expect(gw.app.router.name).toBe('TrieRouter');
    const regExp = new RegExpRouter<unknown>();
    expect(gw.app.routes.length).toBeGreaterThan(20);
    expect(() => {
      for (const { method, path, handler } of gw.app.routes) regExp.add(method, path, handler);
      regExp.match('GET', '/healthz');
    }).toThrow(UnsupportedPathError);
    // And the trie answers as before.
    expect((await gw.app.request('/healthz')).status).toBe(200);
  });
});
