/**
 * Issue 30 item 2: a SIGTERM drains a `gateway-server` process. Readiness fails at once, new
 * requests are refused with 503 and `Connection: close` while the balancer notices, calls in
 * flight finish within the grace, a call that outlives it is cut, and the process exits within
 * the grace plus a few seconds.
 */
import { request } from 'node:http';
import { describe, expect, it, vi } from 'vitest';
import { callTool, slowWaitStarted, startScaleBin } from '#test/support/scale-bin.js';

/** A GET on a connection of its own, answering its status and `Connection` header. */
function get(
  url: string,
  path: string,
  host?: string,
): Promise<{ status: number; connection: string }> {
  const headers = host === undefined ? {} : { host };
  return new Promise((resolve, reject) => {
    const sent = request(`${url}${path}`, { agent: false, headers }, (response) => {
      response.resume();
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          connection: String(response.headers.connection),
        }),
      );
    });
    sent.on('error', reject);
    sent.end();
  });
}

describe('a SIGTERM', () => {
  it('fails readiness at once, refuses new requests, lets calls in flight finish, and exits', async () => {
    const gateway = await startScaleBin({
      GATEWAY_SHUTDOWN_GRACE_MS: '8000',
      GATEWAY_SHUTDOWN_NOTICE_MS: '1500',
    });
    expect(await get(gateway.url, '/readyz')).toMatchObject({ status: 200 });
    // A balancer may probe an instance by its own address, whatever the gateway's name.
    expect(await get(gateway.url, '/readyz', '10.1.2.3:8787')).toMatchObject({ status: 200 });
    expect(await get(gateway.url, '/api/connectors/availability', '10.1.2.3:8787')).toMatchObject({
      status: 421,
    });
    const inFlight = callTool(gateway.url, gateway.token, 'scale.slow.wait', { ms: 3000 });
    // The call has reached the tool before the signal.
    await slowWaitStarted(gateway.output, 3000);
    const signalled = Date.now();
    gateway.child.kill('SIGTERM');
    // Readiness fails as soon as the process has the signal.
    await vi.waitFor(
      async () => expect(await get(gateway.url, '/readyz')).toMatchObject({ status: 503 }),
      { timeout: 2000, interval: 20 },
    );
    expect(await get(gateway.url, '/healthz')).toMatchObject({ status: 200 });
    const refused = await get(gateway.url, '/api/connectors/availability');
    expect(refused).toEqual({ status: 503, connection: 'close' });
    const call = await callTool(gateway.url, gateway.token, 'scale.echo.say', { text: 'late' });
    expect(call.status).toBe(503);
    expect(JSON.parse(call.text)).toMatchObject({ error: { code: 'service_unavailable' } });

    const answered = await inFlight;
    expect(answered.status).toBe(200);
    expect(answered.text).toContain('"waited":3000');
    expect(await gateway.exited).toBe(0);
    // Done once the call was: well within the grace.
    expect(Date.now() - signalled).toBeLessThan(8000);
    expect(gateway.output.stderr).not.toContain('MCP endpoint is closed');
  }, 60_000);

  it('cuts a call that outlives the grace and exits soon after it', async () => {
    const gateway = await startScaleBin({
      GATEWAY_SHUTDOWN_GRACE_MS: '2000',
      GATEWAY_SHUTDOWN_NOTICE_MS: '500',
    });
    const outliving = callTool(gateway.url, gateway.token, 'scale.slow.wait', { ms: 10_000 }).then(
      (answer) => answer.text,
      () => 'cut',
    );
    await slowWaitStarted(gateway.output, 10_000);
    const signalled = Date.now();
    gateway.child.kill('SIGTERM');
    expect(await gateway.exited).toBe(0);
    const took = Date.now() - signalled;
    expect(took).toBeGreaterThanOrEqual(1900);
    // The grace, plus the few seconds the process may take to close.
    expect(took).toBeLessThan(2000 + 5000);
    expect(await outliving).not.toContain('"waited":10000');
  }, 60_000);
});
