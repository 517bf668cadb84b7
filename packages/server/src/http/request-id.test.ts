/**
 * Issue 30 item 5: every answer carries `X-Request-Id`, the id its log lines carry; a proxy the
 * gateway trusts may name it, nobody else.
 */
import { describe, expect, it } from 'vitest';
import { createTestGateway } from '#test/support/test-gateway.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function started(env: Record<string, string> = {}) {
  const gw = await createTestGateway({ baseUrl: undefined, host: '127.0.0.1', port: 0, env });
  const { url } = await gw.start();
  const send = async (path: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${url}${path}`, { headers });
    await res.body?.cancel();
    return { status: res.status, id: res.headers.get('x-request-id') };
  };
  /** The log lines that carry `id`. */
  const linesOf = (id: string | null) =>
    gw
      .logs()
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.requestId === id);
  return { gw, send, linesOf };
}

describe('X-Request-Id', () => {
  it('answers a fresh id on every answer, the id of its log lines, whatever the client sent', async () => {
    const { send, linesOf } = await started();
    const answers = [
      await send('/healthz'),
      await send('/api/me'),
      await send('/api/me', { authorization: 'Bearer gw_cli_wrong' }),
      await send('/nowhere', { accept: 'application/json' }),
      await send('/healthz', { 'x-request-id': 'chosen-by-client' }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 401, 401, 404, 200]);
    for (const { id } of answers) expect(id).toMatch(UUID);
    expect(new Set(answers.map((answer) => answer.id)).size).toBe(answers.length);
    const [request] = linesOf(answers[1]?.id ?? null);
    expect(request).toMatchObject({ msg: 'request', route: '/api/me', status: 401 });
  });

  it("takes a trusted proxy's id when it is well formed and short", async () => {
    const { send, linesOf } = await started({ GATEWAY_TRUSTED_PROXIES: '127.0.0.1' });
    const haproxy = '7F000001:C2E6_7F000001:1F90_6745A3F1_0001:1A2B';
    expect((await send('/healthz', { 'x-request-id': haproxy })).id).toBe(haproxy);
    expect(linesOf(haproxy)).toEqual([expect.objectContaining({ msg: 'request' })]);
    for (const bad of ['a'.repeat(129), 'two words', 'line\u00a0break', '{"json":1}']) {
      expect((await send('/healthz', { 'x-request-id': bad })).id).toMatch(UUID);
    }
  });

  it('is the id of the lines a request logs besides its own', async () => {
    const { send, linesOf } = await started({ GATEWAY_TRUSTED_PROXIES: '127.0.0.1' });
    const { status, id } = await send('/api/me', {
      authorization: 'Bearer gw_cli_wrong',
      'x-forwarded-for': 'not-an-address',
    });
    expect(status).toBe(400);
    expect(linesOf(id).map((line) => line.msg)).toEqual([
      'unreadable X-Forwarded-For from a trusted proxy; request refused',
      'request',
    ]);
  });
});
