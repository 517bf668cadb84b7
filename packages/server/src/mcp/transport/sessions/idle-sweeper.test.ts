import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { connectV1, startMcpGateway } from '#test/mcp/mcp-test-kit.js';
import { TEST_SERVICE_SECRET } from '#test/support/test-gateway.js';

// The tests of expiry across instances (shared-sessions.test.ts) run each sweep themselves; this
// one leaves the sweeps to the sweeper's own timer, as a gateway does.

/** The sessions the gateway at `url` holds open, as its metrics say. */
async function openSessions(url: string): Promise<number> {
  const response = await fetch(`${url}/metrics`, {
    headers: { authorization: `Bearer ${TEST_SERVICE_SECRET}` },
  });
  return Number(/^gateway_mcp_sessions_open (\d+)$/m.exec(await response.text())?.[1]);
}

describe('the idle sweep of 2025 sessions', () => {
  it('closes a session unused past the idle time on its own timer', async () => {
    // Date (the clock sessions are idle by) stands still until moved past the idle time; the
    // sweeper's timer runs in real time (every 50 ms at a 100 ms idle time).
    vi.useFakeTimers({ toFake: ['Date'] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const gw = await startMcpGateway({ mcp: { sessionIdleMs: 100 } });
    const alice = await gw.user({ admin: true });
    await connectV1(gw.url, alice.mcpToken);
    expect(await openSessions(gw.url)).toBe(1);
    vi.setSystemTime(Date.now() + 1000);
    // Asked until the next sweep has run (not expect.poll: it moves a faked clock on).
    let open = 1;
    for (let i = 0; i < 500 && open > 0; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      open = await openSessions(gw.url);
    }
    expect(open).toBe(0);
  });
});
