import { describe, expect, it } from 'vitest';
import { postgresTestUrl } from '#test/db/test-database.js';
import { createPostgresTestGateway } from '#test/support/postgres-test-gateway.js';

const url = postgresTestUrl();

// On PostgreSQL two requests run in two transactions at once: without a lock, two admins demoting
// each other would each count two admins, and both succeed, leaving none.
describe.skipIf(!url)('the last admin on PostgreSQL', () => {
  it('keeps one admin when two admins demote each other at the same time', async () => {
    const gw = await createPostgresTestGateway(url!);
    for (let round = 0; round < 10; round += 1) {
      const alice = await gw.createUser({ admin: true });
      const bob = await gw.createUser({ admin: true });
      // Only these two are admins in this round.
      await gw.services.database.db
        .updateTable('user_roles')
        .set({ role_id: 'member' })
        .where('role_id', '=', 'admin')
        .where('user_id', 'not in', [alice.id, bob.id])
        .execute();

      const results = await Promise.allSettled([
        gw.services.policy.assignRole(alice.id, 'member'),
        gw.services.policy.assignRole(bob.id, 'member'),
      ]);

      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
      const admins = await gw.services.database.db
        .selectFrom('user_roles')
        .select('user_id')
        .where('role_id', '=', 'admin')
        .execute();
      expect(admins).toHaveLength(1);
    }
  });
});
