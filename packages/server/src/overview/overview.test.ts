/**
 * The overview's lists in a documented order when their times tie (docs/api.md, "Lists"): made
 * in the same millisecond, two pending approvals are the oldest in the order of their ids, two
 * reconnect marks the newest in the reverse order of their accounts' ids.
 */
import { describe, expect, it } from 'vitest';
import { createTestGateway } from '#test/support/test-gateway.js';
import { markReconnect } from '../vending/reconnect-marks.js';

describe('GET /api/overview', () => {
  it('orders items made in the same millisecond by id, whatever order they were made in', async () => {
    const gw = await createTestGateway();
    const admin = await gw.createUser({ admin: true });
    const { db } = gw.services.database;
    const at = new Date(Date.now() - 60_000);
    // Made in the reverse order of their ids: a list that left ties to the database's scan order
    // would answer them as made.
    for (const id of [
      'ffffffff-0000-4000-8000-000000000002',
      '00000000-0000-4000-8000-000000000001',
    ]) {
      await db
        .insertInto('approvals')
        .values({
          id,
          execution_id: crypto.randomUUID(),
          user_id: admin.id,
          tool_path: 'demo.files.delete',
          message: 'Delete?',
          args: '{}',
          status: 'pending',
          decided_by: null,
          created_at: at.toISOString(),
          decided_at: null,
          expires_at: new Date(Date.now() + 600_000).toISOString(),
        })
        .execute();
    }
    const frozen = at.toISOString();
    for (const [id, providerId] of [
      ['account-1', 'gcp'],
      ['account-9', 'github'],
    ] as const) {
      await db
        .insertInto('account')
        .values({
          id,
          accountId: `${providerId}-account`,
          providerId,
          userId: admin.id,
          accessToken: `stored-access-${id}`,
          refreshToken: null,
          idToken: null,
          accessTokenExpiresAt: null,
          refreshTokenExpiresAt: null,
          scope: null,
          password: null,
          createdAt: frozen,
          updatedAt: frozen,
        })
        .execute();
      await markReconnect(
        db,
        { id, userId: admin.id, providerId, accessToken: `stored-access-${id}` },
        'invalid_grant',
      );
    }
    await db.updateTable('oauth_reconnect').set({ created_at: frozen }).execute();

    const response = await gw.request('GET', '/api/overview', { as: admin });
    expect(response.status).toBe(200);
    const overview = (await response.json()) as {
      pendingApprovals: { oldest: { id: string }[] };
      reconnects: { provider: string }[];
    };
    expect(overview.pendingApprovals.oldest.map((one) => one.id)).toEqual([
      '00000000-0000-4000-8000-000000000001',
      'ffffffff-0000-4000-8000-000000000002',
    ]);
    // Newest first: the greater account id first.
    expect(overview.reconnects.map((one) => one.provider)).toEqual(['github', 'gcp']);
  });
});
