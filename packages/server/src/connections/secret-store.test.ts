import { describe, expect, it, onTestFinished } from 'vitest';
import { databaseTargets } from '#test/db/test-database.js';
import { recentUsersOf } from './secret-store.js';

const NOW = '2026-03-01T12:00:00.000Z';
const TOOL = 'mcp.docs';

for (const target of databaseTargets()) {
  describe.skipIf(target.skip)(`connection secrets on ${target.name}`, () => {
    it('lists the users updated in the same millisecond by descending connection id', async () => {
      // With no id tie-break, which users the limit kept was up to the database.
      // Inserted lowest id first, so an order by insertion would differ.
      const { database, cleanup } = await target.open();
      onTestFinished(cleanup);
      const { db } = database;
      const users = ['u1', 'u2', 'u3'];
      const created = new Date(NOW);
      await db
        .insertInto('user')
        .values(
          users.map((id) => ({
            id,
            name: id,
            email: `${id}@example.test`,
            createdAt: created,
            updatedAt: created,
          })),
        )
        .execute();
      await db
        .insertInto('connections')
        .values(
          users.map((userId, i) => ({
            id: `c${i}`,
            user_id: userId,
            owner: 'user' as const,
            tool_id: TOOL,
            instance_name: 'Default',
            description: null,
            encrypted_secret: 'aXY=:Y2lwaGVy',
            masked_secret: '••••1234',
            workspace_id: null,
            parent_id: null,
            created_at: NOW,
            updated_at: NOW,
          })),
        )
        .execute();

      expect(await recentUsersOf(db, TOOL, 2)).toEqual([{ user_id: 'u3' }, { user_id: 'u2' }]);
    });
  });
}
