import { describe, expect, it } from 'vitest';
import { createTestGateway, type TestGateway } from '#test/support/test-gateway.js';
import type { ApprovalItem } from './store.js';

async function pending(gw: TestGateway, userId: string) {
  let resolveId: (id: string) => void = () => {};
  const stored = new Promise<string>((resolve) => {
    resolveId = resolve;
  });
  const outcome = gw.services.approvals.request({
    executionId: crypto.randomUUID(),
    userId,
    toolPath: 'demo.files.delete',
    message: 'Delete report.pdf?',
    args: { name: 'report.pdf' },
    timeoutMs: 10_000,
    onPending: (approval) => resolveId(approval.id),
  });
  return { id: await stored, outcome };
}

describe('/api/approvals', () => {
  it('lists a user’s pending approvals and lets them decide, once', async () => {
    const gw = await createTestGateway();
    const alice = await gw.createUser();
    const { id, outcome } = await pending(gw, alice.id);

    const list = await gw.request('GET', `/api/approvals?userId=${alice.id}`, { as: alice });
    expect(list.status).toBe(200);
    const { approvals } = (await list.json()) as { approvals: ApprovalItem[] };
    expect(approvals).toMatchObject([
      {
        id,
        toolPath: 'demo.files.delete',
        message: 'Delete report.pdf?',
        status: 'pending',
        args: { name: 'report.pdf' },
      },
    ]);

    const decided = await gw.request('POST', `/api/approvals/${id}`, {
      as: alice,
      body: { decision: 'approve' },
    });
    expect(decided.status).toBe(200);
    expect(await decided.json()).toMatchObject({
      approval: { id, status: 'approved', decidedBy: alice.id },
    });
    expect(await outcome).toMatchObject({ status: 'approved' });

    const again = await gw.request('POST', `/api/approvals/${id}`, {
      as: alice,
      body: { decision: 'deny' },
    });
    expect(again.status).toBe(409);
    const none = await gw.request('GET', `/api/approvals?userId=${alice.id}`, { as: alice });
    expect(((await none.json()) as { approvals: unknown[] }).approvals).toEqual([]);
  });

  it('hides another user’s approval, lets an admin decide it, and validates the body', async () => {
    const gw = await createTestGateway();
    const alice = await gw.createUser();
    const bob = await gw.createUser();
    const admin = await gw.createUser({ admin: true });
    const { id, outcome } = await pending(gw, alice.id);

    expect(
      (await gw.request('POST', `/api/approvals/${id}`, { as: bob, body: { decision: 'approve' } }))
        .status,
    ).toBe(404);
    expect((await gw.request('GET', `/api/approvals?userId=${alice.id}`, { as: bob })).status).toBe(
      403,
    );
    expect(
      (await gw.request('POST', `/api/approvals/${id}`, { as: alice, body: { decision: 'maybe' } }))
        .status,
    ).toBe(400);
    expect(
      (
        await gw.request('POST', `/api/approvals/not-a-uuid`, {
          as: alice,
          body: { decision: 'deny' },
        })
      ).status,
    ).toBe(404);

    const byAdmin = await gw.request('POST', `/api/approvals/${id}`, {
      as: admin,
      body: { decision: 'deny' },
    });
    expect(byAdmin.status).toBe(200);
    expect(await outcome).toMatchObject({ status: 'denied', decidedBy: admin.id });
  });

  it('expires an approval nobody decides in time', async () => {
    const gw = await createTestGateway();
    const alice = await gw.createUser();
    const approval = await gw.services.approvals.request({
      executionId: crypto.randomUUID(),
      userId: alice.id,
      toolPath: 'demo.files.delete',
      message: 'Delete?',
      args: {},
      timeoutMs: 50,
    });
    expect(approval.status).toBe('expired');
    const late = await gw.request('POST', `/api/approvals/${approval.id}`, {
      as: alice,
      body: { decision: 'approve' },
    });
    expect(late.status).toBe(409);
  });

  it('expires the approval when the caller goes away', async () => {
    const gw = await createTestGateway();
    const alice = await gw.createUser();
    const controller = new AbortController();
    const outcome = gw.services.approvals.request({
      executionId: crypto.randomUUID(),
      userId: alice.id,
      toolPath: 'demo.files.delete',
      message: 'Delete?',
      args: {},
      timeoutMs: 10_000,
      signal: controller.signal,
      onPending: () => controller.abort(),
    });
    expect(await outcome).toMatchObject({ status: 'expired' });
  });
});
