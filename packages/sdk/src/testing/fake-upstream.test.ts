import { describe, expect, it } from 'vitest';
import { startFakeUpstream } from './fake-upstream.js';

describe('startFakeUpstream', () => {
  it('records requests, answers with the route, and closes once', async () => {
    const upstream = await startFakeUpstream((request) =>
      request.path === '/missing' ? { status: 404, body: { error: 'no' } } : { body: { ok: true } },
    );
    const ok = await fetch(`${upstream.url}/items?limit=2`, {
      method: 'POST',
      headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'a' }),
    });
    expect(await ok.json()).toEqual({ ok: true });
    expect((await fetch(`${upstream.url}/missing`)).status).toBe(404);
    expect(upstream.requests).toHaveLength(2);
    expect(upstream.requests[0]).toMatchObject({
      method: 'POST',
      path: '/items',
      body: { name: 'a' },
    });
    expect(upstream.requests[0]?.query.get('limit')).toBe('2');
    expect(upstream.requests[0]?.headers.authorization).toBe('Bearer k');
    await Promise.all([upstream.close(), upstream.close()]);
    await expect(fetch(upstream.url)).rejects.toThrow();
  });

  it('hands its close to the cleanup registrar', async () => {
    let registered: (() => Promise<void>) | undefined;
    const upstream = await startFakeUpstream(() => ({}), {
      cleanup: (close) => (registered = close),
    });
    expect(registered).toBe(upstream.close);
    await registered?.();
  });
});
