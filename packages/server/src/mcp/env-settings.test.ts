import { describe, expect, it } from 'vitest';
import { ManualCallTimer } from '#test/mcp/manual-call-timer.js';
import { connectV2, INITIALIZE, startMcpGateway } from '#test/mcp/mcp-test-kit.js';
import { createTestGateway } from '#test/support/test-gateway.js';

/**
 * Calls `demo.slow.wait`, which runs until stopped, checks that its limit is armed with `ms`, and
 * expires it (call-signal.test.ts waits a real limit out).
 */
async function limitedCall(
  client: Awaited<ReturnType<typeof connectV2>>,
  timer: ManualCallTimer,
  ms: number,
) {
  const call = client.callTool({ name: 'demo.slow.wait', arguments: {} });
  await expect.poll(() => timer.armed).toEqual([ms]);
  timer.expireAll();
  return call;
}

// `gateway-server` is configured by its environment alone: the MCP settings must be reachable
// from there, with `createGateway({ mcp })` still beating them.
describe('MCP settings from the environment', () => {
  it('takes the tool time limit and the allowed origins from GATEWAY_* variables', async () => {
    // The limit runs on the test's timer: the call is seen armed with it, then expired.
    const timer = new ManualCallTimer();
    const gw = await startMcpGateway({
      env: {
        GATEWAY_TOOL_TIMEOUT_SECONDS: '0.15',
        GATEWAY_ALLOWED_ORIGINS: 'https://app.example.com, http://localhost:3000',
      },
      internals: { callTimer: timer },
    });
    const alice = await gw.user({ admin: true });
    const v2 = await connectV2(gw.url, alice.mcpToken);
    const result = await limitedCall(v2, timer, 150);
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('did not finish within 0.2 s');

    const initialize = (origin: string) =>
      fetch(`${gw.url}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${alice.mcpToken}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          origin,
        },
        body: JSON.stringify(INITIALIZE),
      });
    expect((await initialize('https://app.example.com')).status).toBe(200);
    expect((await initialize('http://evil.example.com')).status).toBe(403);
  });

  it('lets createGateway({ mcp }) beat the environment', async () => {
    const timer = new ManualCallTimer();
    const gw = await startMcpGateway({
      env: { GATEWAY_TOOL_TIMEOUT_SECONDS: '0.15' },
      mcp: { toolTimeoutMs: 300 },
      internals: { callTimer: timer },
    });
    const alice = await gw.user({ admin: true });
    const v2 = await connectV2(gw.url, alice.mcpToken);
    const result = await limitedCall(v2, timer, 300);
    expect(JSON.stringify(result.content)).toContain('did not finish within 0.3 s');
  });

  it('refuses a value that is not a positive number of seconds, naming the variable', async () => {
    await expect(
      createTestGateway({ env: { GATEWAY_APPROVAL_TIMEOUT_SECONDS: 'soon' } }),
    ).rejects.toThrow(
      'GATEWAY_APPROVAL_TIMEOUT_SECONDS must be a positive number of seconds, got "soon"',
    );
  });
});
