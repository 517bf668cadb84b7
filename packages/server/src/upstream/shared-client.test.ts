/**
 * A 2026-07-28 upstream's client serves every call of one credential at once: on a source without
 * per-user credentials, every user's. An answer that is not MCP ends the call it answered; the
 * client is given to no new call (the next one asks the upstream again which revision it speaks),
 * but the other users' calls in flight on it go on to their own answers (issue 37's "noticed, left"
 * list: Bob's hostile answers ended Alice's call as "failed").
 */
import { describe, expect, it } from 'vitest';
import { connectV2, recordsOf } from '#test/mcp/mcp-test-kit.js';
import { startFakeUpstream } from '#test/upstream/fake-upstream.js';
import { gatewayServing } from '#test/upstream/register-source.js';

describe("a 2026-07-28 upstream's answer that is not MCP", () => {
  it("ends the call it answered, not another user's call in flight on the same client", async () => {
    const fake = await startFakeUpstream(
      [
        { name: 'slow', behaviour: { kind: 'hold', text: 'slow answered' } },
        { name: 'garbage', behaviour: { kind: 'garbage' } },
        { name: 'both', behaviour: { kind: 'result-and-error' } },
        { name: 'sse', behaviour: { kind: 'sse-garbage' } },
      ],
      { claims2026: true },
    );
    const gw = await gatewayServing(fake.url, 'up');
    const alice = await gw.user({ admin: true });
    const bob = await gw.user({ admin: true });
    const aliceClient = await connectV2(gw.url, alice.mcpToken);
    const bobClient = await connectV2(gw.url, bob.mcpToken);
    const discovered = () =>
      fake.requests.filter((request) => request.method === 'server/discover').length;

    const slow = aliceClient.callTool({ name: 'up.slow', arguments: {} });
    await expect.poll(() => fake.held, { timeout: 10_000 }).toBe(1);
    const before = discovered();
    // Each of Bob's calls meets the hostile answer; each after the first on a new client.
    for (const name of ['garbage', 'both', 'sse']) {
      const ended = await bobClient.callTool({ name: `up.${name}`, arguments: {} });
      expect(ended.isError, name).toBe(true);
      expect(JSON.stringify(ended.content), name).toContain('answered something that is not MCP');
    }
    expect(discovered()).toBeGreaterThan(before);

    // Alice's call was still waiting on the upstream, and takes its own answer.
    expect(fake.held).toBe(1);
    fake.release();
    const answered = await slow;
    expect(answered.isError).toBeFalsy();
    expect(answered.content).toEqual([{ type: 'text', text: 'slow answered' }]);
    const [record] = await recordsOf(gw, 'up.slow');
    expect(record).toMatchObject({ outcome: 'ok', error: null });

    // The source still serves both of them.
    const again = aliceClient.callTool({ name: 'up.slow', arguments: {} });
    await expect.poll(() => fake.held, { timeout: 10_000 }).toBe(1);
    fake.release();
    expect((await again).isError).toBeFalsy();
  });
});
