import { describe, expect, it } from 'vitest';
import { createTestGateway } from './testing/test-gateway.js';

describe('gateway app', () => {
  it('answers /healthz when the database answers', async () => {
    const gw = await createTestGateway();
    const res = await gw.request('GET', '/healthz');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
  });

  it('answers unknown routes with the JSON error body', async () => {
    const gw = await createTestGateway();
    const res = await gw.request('GET', '/api/nope', { as: 'service' });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      error: { code: 'not_found', message: 'No route GET /api/nope' },
    });
  });

  it('answers a wrong method with 405, the Allow header and the JSON error body', async () => {
    const gw = await createTestGateway();
    const res = await gw.request('POST', '/healthz');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
    expect(await res.json()).toMatchObject({ error: { code: 'method_not_allowed' } });
  });

  it('rejects a malformed or unknown bearer token with 401', async () => {
    const gw = await createTestGateway();
    for (const authorization of [
      'Basic abc',
      'Bearer gw_cli_unknown0000000000000000000000000',
      'Bearer nope',
    ]) {
      const res = await gw.request('GET', '/api/nope', { headers: { authorization } });
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: { code: 'unauthorized' } });
    }
  });

  it('refuses to start without AUTH_SECRET, naming both ways to set it', async () => {
    const { createGateway } = await import('./gateway.js');
    await expect(
      createGateway({ env: {}, databaseUrl: ':memory:', configFile: false }),
    ).rejects.toThrow(/AUTH_SECRET.*environment variable.*authSecret/);
  });

  it('logs one line per request without the bearer token', async () => {
    const gw = await createTestGateway();
    const user = await gw.createUser();
    await gw.request('GET', '/healthz', { as: user });
    const lines = gw
      .logs()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.at(-1)).toMatchObject({
      msg: 'request',
      method: 'GET',
      route: '/healthz',
      status: 200,
    });
    expect(gw.logs()).not.toContain(user.token);
  });
});
