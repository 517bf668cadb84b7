/**
 * Issue 37: a request's log line scans only what a caller can choose; a secret in any such field
 * is still masked.
 */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createTestGateway } from '#test/support/test-gateway.js';
import type { Principal } from '../identity/principal.js';
import type { AppEnv } from './app-env.js';
import { createLogger } from './logger.js';
import { REDACTED, Redactor } from './redact.js';
import { requestLog } from './request-log.js';

const SECRET = 'configured-secret-value';

/** An app logging its requests, as `principal` when given; and the lines it wrote. */
function app(principal?: Principal) {
  const lines: string[] = [];
  const logger = createLogger({ write: (line) => lines.push(line) }, new Redactor([SECRET]));
  const hono = new Hono<AppEnv>();
  hono.use(requestLog(logger));
  hono.use(async (c, next) => {
    if (principal !== undefined) c.set('principal', principal);
    await next();
  });
  hono.all('/items/:id', (c) => c.text('ok'));
  const parsed = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  return { hono, parsed };
}

describe("a request's log line", () => {
  it('masks a secret in the user id and in a method made in process', async () => {
    const user = { kind: 'user', userId: `u-${SECRET}` } as unknown as Principal;
    const { hono, parsed } = app(user);
    await hono.request(`/items/${SECRET}`);
    await hono.request('/items/1', { method: 'sk-abcdefghijklmnop1234' });
    const [get, custom] = parsed();
    expect(get).toMatchObject({ method: 'GET', route: '/items/:id', userId: `u-${REDACTED}` });
    expect(JSON.stringify(get)).not.toContain(SECRET);
    expect(custom).toMatchObject({ method: REDACTED, route: '/items/:id', status: 200 });
    expect(get?.requestId).toEqual(expect.any(String));
  });

  it("masks a secret in a trusted proxy's request id", async () => {
    const gw = await createTestGateway({
      baseUrl: undefined,
      host: '127.0.0.1',
      port: 0,
      env: { GATEWAY_TRUSTED_PROXIES: '127.0.0.1' },
    });
    const { url } = await gw.start();
    const token = `gw_mcp_${'a'.repeat(24)}`;
    const res = await fetch(`${url}/healthz`, { headers: { 'x-request-id': token } });
    await res.body?.cancel();
    expect(res.headers.get('x-request-id')).toBe(token);
    const lines = gw
      .logs()
      .split('\n')
      .filter((line) => line.includes('"msg":"request"'));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ requestId: REDACTED, route: '/healthz' });
    expect(gw.logs()).not.toContain(token);
  });
});
