import type { ServedGateway } from '@gateway/server/testing';
import { describe, expect, it } from 'vitest';
import { cliFailure, signInCli } from '#test/support/cli-user.js';
import { startGateway } from '#test/support/gateway-server.js';
import { runApprovalsDecide, runApprovalsList } from './index.js';

/** A tool call waiting for `userId`'s approval, as a client without elicitation causes one. */
async function pendingApproval(gateway: ServedGateway, userId: string, message: string) {
  let stored: (id: string) => void = () => {};
  const id = new Promise<string>((resolve) => {
    stored = resolve;
  });
  const outcome = gateway.services.approvals.request({
    executionId: crypto.randomUUID(),
    userId,
    toolPath: 'notes.items.delete',
    message,
    args: { id: 'n1' },
    timeoutMs: 30_000,
    onPending: (approval) => stored(approval.id),
  });
  return { id: await id, outcome };
}

describe('gateway approvals', () => {
  it('lists what waits, approves one and denies another; the waiting calls resume', async () => {
    const { url, gateway } = await startGateway();
    const ada = await signInCli(url, 'ada@example.test');

    const empty = ada.options();
    await expect(runApprovalsList(empty)).resolves.toEqual([]);
    expect(empty.io.out()).toBe('Nothing is waiting for your approval.\n');

    const first = await pendingApproval(gateway, ada.userId, 'Delete note n1?');
    const second = await pendingApproval(gateway, ada.userId, 'Delete note n2?');
    const listed = ada.options();
    await runApprovalsList(listed);
    const out = listed.io.out();
    expect(out).toMatch(/^ID\s+TOOL\s+STATUS\s+ASKED\s+MESSAGE\n/);
    expect(out).toMatch(
      new RegExp(
        `\\n${first.id}\\s+notes\\.items\\.delete\\s+pending\\s+\\S+\\s+Delete note n1\\?\\n`,
      ),
    );
    expect(out).toContain(second.id);

    const approved = ada.options();
    await runApprovalsDecide({ ...approved, id: first.id, decision: 'approve' });
    expect(approved.io.out()).toBe(
      `✓ Approved notes.items.delete (${first.id}); the tool call goes ahead\n`,
    );
    await expect(first.outcome).resolves.toMatchObject({
      status: 'approved',
      decidedBy: ada.userId,
    });

    const denied = ada.options();
    await runApprovalsDecide({ ...denied, id: second.id, decision: 'deny', json: true });
    expect(JSON.parse(denied.io.out())).toMatchObject({
      approval: { id: second.id, status: 'denied' },
    });
    await expect(second.outcome).resolves.toMatchObject({ status: 'denied' });

    const all = ada.options();
    const everything = await runApprovalsList({ ...all, all: true, json: true });
    expect(everything.map((approval) => approval.status).sort()).toEqual(['approved', 'denied']);
  });

  it('answers an unknown approval with exit 1, a decided one with exit 1, and another user’s as not found', async () => {
    const { url, gateway } = await startGateway();
    await signInCli(url, 'admin@example.test');
    const ada = await signInCli(url, 'ada@example.test');
    const bob = await signInCli(url, 'bob@example.test');
    const missing = await cliFailure(
      runApprovalsDecide({
        ...ada.options(),
        id: '00000000-0000-4000-8000-000000000000',
        decision: 'approve',
      }),
    );
    expect(missing.exitCode).toBe(1);
    expect(missing.message).toBe(
      'No approval 00000000-0000-4000-8000-000000000000; see `gateway approvals list`',
    );

    const pending = await pendingApproval(gateway, ada.userId, 'Delete?');
    const bobs = await cliFailure(
      runApprovalsDecide({ ...bob.options(), id: pending.id, decision: 'approve' }),
    );
    expect(bobs.exitCode).toBe(1);
    await runApprovalsDecide({ ...ada.options(), id: pending.id, decision: 'deny' });
    const twice = await cliFailure(
      runApprovalsDecide({ ...ada.options(), id: pending.id, decision: 'approve' }),
    );
    expect(twice.exitCode).toBe(1);
    expect(twice.message).toBe(`Approval ${pending.id} is already denied`);
  });
});
