/**
 * Issue 31: a client that gives up without cancelling (the Inspector CLI after 60 s) left its
 * approval pending, and approving it later performed the action. Now the approval dies with its
 * call: the client closing the connection (with no stream left to answer on) or the source being
 * removed expires it at once, and approving it afterwards runs nothing.
 */
import { describe, expect, it } from 'vitest';
import {
  connectV1,
  connectV2,
  type PendingApproval,
  recordsOf,
  waitForApproval,
} from '#test/mcp/mcp-test-kit.js';
import { startFakeUpstream } from '#test/upstream/fake-upstream.js';
import { gatewayServing } from '#test/upstream/register-source.js';

async function gatewayWithUpstream() {
  const fake = await startFakeUpstream([{ name: 'wipe', behaviour: { kind: 'answer' } }]);
  // `hints`: an unannotated tool asks.
  const gw = await gatewayServing(fake.url, 'up', { approval: 'hints' });
  const alice = await gw.user({ admin: true });
  return { fake, gw, alice };
}

type World = Awaited<ReturnType<typeof gatewayWithUpstream>>;

async function statusOf(world: World, id: string): Promise<string | undefined> {
  const listed = await world.gw.gateway.request(
    'GET',
    `/api/approvals?userId=${world.alice.id}&status=all`,
    { as: world.alice },
  );
  const { approvals } = (await listed.json()) as { approvals: PendingApproval[] };
  return approvals.find((approval) => approval.id === id)?.status;
}

/** The approval is expired, cannot be approved, and the upstream never ran the tool. */
async function expectDead(world: World, pending: PendingApproval) {
  await expect.poll(() => statusOf(world, pending.id), { timeout: 10_000 }).toBe('expired');
  const approved = await world.gw.gateway.request('POST', `/api/approvals/${pending.id}`, {
    as: world.alice,
    body: { decision: 'approve' },
  });
  expect(approved.status).toBe(409);
  // The call is over, its record closed without running: no waiter is left that an approval
  // could still let through.
  const closed = async () =>
    (await recordsOf(world.gw, 'up.wipe')).map((record) => ({
      approval: record.approval,
      outcome: record.outcome,
      over: record.duration_ms !== null,
    }));
  await expect
    .poll(closed, { timeout: 10_000 })
    .toEqual([{ approval: 'cancelled', outcome: null, over: true }]);
  expect(world.fake.calls).toEqual([]);
}

describe('an approval whose caller left', () => {
  for (const [label, connect] of [
    [
      'a 2025 session client',
      async (url: string, token: string) => (await connectV1(url, token)).client,
    ],
    ['a 2026-07-28 client', connectV2],
  ] as const) {
    it(`expires when ${label} closes the connection without cancelling`, async () => {
      const world = await gatewayWithUpstream();
      // No elicitation: the question goes to the approvals list.
      const client = await connect(world.gw.url, world.alice.mcpToken);
      const call = client.callTool({ name: 'up.wipe', arguments: {} });
      call.catch(() => {});
      const pending = await waitForApproval(world.gw, world.alice);
      expect(pending.status).toBe('pending');
      await client.close();
      await expectDead(world, pending);
    });
  }

  it('expires when its source is removed', async () => {
    const world = await gatewayWithUpstream();
    const client = await connectV2(world.gw.url, world.alice.mcpToken);
    const call = client.callTool({ name: 'up.wipe', arguments: {} });
    const pending = await waitForApproval(world.gw, world.alice);
    const removed = await world.gw.gateway.request('DELETE', '/api/registry/sources/up', {
      as: 'service',
    });
    expect(removed.status).toBe(200);
    const result = await call;
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('removed');
    await expectDead(world, pending);
  });
});
