import { describe, expect, it } from 'vitest';
import { createTestGateway } from '#test/support/test-gateway.js';

interface Page {
  executions: { id: string; toolPath: string; startedAt: string; arguments: unknown }[];
  nextCursor: string | null;
}

describe('GET /api/executions', () => {
  async function setup() {
    const gw = await createTestGateway();
    const alice = await gw.createUser();
    const bob = await gw.createUser();
    const admin = await gw.createUser({ admin: true });
    for (let i = 0; i < 5; i += 1) {
      gw.services.executions.write({
        id: `00000000-0000-4000-8000-00000000000${i}`,
        userId: alice.id,
        toolPath: `demo.tool.t${i}`,
        startedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
        arguments: { n: i, password: 'hunter2' },
        outcome: 'ok',
        durationMs: i,
      });
    }
    return { gw, alice, bob, admin };
  }

  it('lists the caller’s records newest first, page by page', async () => {
    const { gw, alice } = await setup();
    const first = await gw.request('GET', `/api/executions?userId=${alice.id}&limit=2`, {
      as: alice,
    });
    expect(first.status).toBe(200);
    const page1 = (await first.json()) as Page;
    expect(page1.executions.map((e) => e.toolPath)).toEqual(['demo.tool.t4', 'demo.tool.t3']);
    expect(page1.executions[0]?.arguments).toEqual({ n: 4, password: '[redacted]' });
    const cursor = encodeURIComponent(page1.nextCursor ?? '');
    const page2 = (await (
      await gw.request('GET', `/api/executions?userId=${alice.id}&limit=2&cursor=${cursor}`, {
        as: alice,
      })
    ).json()) as Page;
    expect(page2.executions.map((e) => e.toolPath)).toEqual(['demo.tool.t2', 'demo.tool.t1']);
    const last = (await (
      await gw.request(
        'GET',
        `/api/executions?userId=${alice.id}&limit=2&cursor=${encodeURIComponent(page2.nextCursor ?? '')}`,
        { as: alice },
      )
    ).json()) as Page;
    expect(last.executions.map((e) => e.toolPath)).toEqual(['demo.tool.t0']);
    expect(last.nextCursor).toBeNull();
  });

  it('lets admins read anyone’s records and nobody else', async () => {
    const { gw, alice, bob, admin } = await setup();
    expect(
      (await gw.request('GET', `/api/executions?userId=${alice.id}`, { as: bob })).status,
    ).toBe(403);
    expect(
      (await gw.request('GET', `/api/executions?userId=${alice.id}`, { as: 'anonymous' })).status,
    ).toBe(401);
    const asAdmin = await gw.request('GET', `/api/executions?userId=${alice.id}`, { as: admin });
    expect(((await asAdmin.json()) as Page).executions).toHaveLength(5);
  });

  it('rejects a cursor it did not give out and unknown parameters', async () => {
    const { gw, alice } = await setup();
    expect(
      (await gw.request('GET', `/api/executions?userId=${alice.id}&cursor=nope`, { as: alice }))
        .status,
    ).toBe(400);
    expect(
      (await gw.request('GET', `/api/executions?userId=${alice.id}&x=1`, { as: alice })).status,
    ).toBe(400);
  });
});
