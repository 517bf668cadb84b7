import { type Kysely, sql } from 'kysely';
import { describe, expect, it, onTestFinished } from 'vitest';
import { databaseTargets } from '#test/db/test-database.js';
import type { DatabaseDialect } from '../db/database.js';
import type { DatabaseSchema } from '../db/schema.js';
import { deleteConnectionTree } from './connection-tree.js';

const NOW = '2026-01-02T03:04:05.678Z';

async function addUser(db: Kysely<DatabaseSchema>, id: string) {
  await db
    .insertInto('user')
    .values({ id, name: id, email: `${id}@example.test`, createdAt: NOW, updatedAt: NOW })
    .execute();
}

async function addConnection(
  db: Kysely<DatabaseSchema>,
  id: string,
  parentId: string | null,
  userId = 'u1',
) {
  await db
    .insertInto('connections')
    .values({
      id,
      user_id: userId,
      tool_id: 'workspace-tool',
      instance_name: id,
      encrypted_secret: 'iv:ct',
      masked_secret: '••••••••',
      parent_id: parentId,
      created_at: NOW,
      updated_at: NOW,
    })
    .execute();
}

/**
 * root -> a, b; a -> a1, a2; b -> b1; plus another tree (other), a lone connection (lone) and
 * another user's connection (theirs).
 */
async function seedForest(db: Kysely<DatabaseSchema>) {
  await addUser(db, 'u1');
  await addUser(db, 'u2');
  await addConnection(db, 'root', null);
  await addConnection(db, 'a', 'root');
  await addConnection(db, 'b', 'root');
  await addConnection(db, 'a1', 'a');
  await addConnection(db, 'a2', 'a');
  await addConnection(db, 'b1', 'b');
  await addConnection(db, 'other', null);
  await addConnection(db, 'other-child', 'other');
  await addConnection(db, 'lone', null);
  await addConnection(db, 'theirs', null, 'u2');
}

async function remainingIds(db: Kysely<DatabaseSchema>) {
  const rows = await db.selectFrom('connections').select('id').orderBy('id').execute();
  return rows.map((row) => row.id);
}

/** A trigger that makes deleting `id` fail, to break the tree delete part-way. */
async function failDeletionOf(db: Kysely<DatabaseSchema>, dialect: DatabaseDialect, id: string) {
  if (dialect === 'sqlite') {
    await sql
      .raw(
        `create trigger refuse_delete before delete on connections when old.id = '${id}'
         begin select raise(abort, 'refused by test trigger'); end`,
      )
      .execute(db);
    return;
  }
  await sql
    .raw(
      `create function refuse_delete() returns trigger language plpgsql as $$
       begin
         if old.id = '${id}' then raise exception 'refused by test trigger'; end if;
         return old;
       end $$`,
    )
    .execute(db);
  await sql
    .raw(
      'create trigger refuse_delete before delete on connections for each row execute function refuse_delete()',
    )
    .execute(db);
}

const ALL = ['a', 'a1', 'a2', 'b', 'b1', 'lone', 'other', 'other-child', 'root', 'theirs'];

for (const target of databaseTargets()) {
  describe.skipIf(target.skip)(`deleteConnectionTree on ${target.name}`, () => {
    async function open() {
      const opened = await target.open();
      onTestFinished(opened.cleanup);
      await seedForest(opened.database.db);
      return opened.database;
    }

    it('deletes a three-level tree, and only it, returning every id root first', async () => {
      const { db } = await open();

      const deleted = await deleteConnectionTree(db, 'root');

      expect(deleted[0]).toBe('root');
      expect(deleted.slice(1, 3).sort()).toEqual(['a', 'b']);
      expect(deleted.slice(3).sort()).toEqual(['a1', 'a2', 'b1']);
      expect(await remainingIds(db)).toEqual(['lone', 'other', 'other-child', 'theirs']);
    });

    it('deletes a subtree from the middle', async () => {
      const { db } = await open();

      expect((await deleteConnectionTree(db, 'a')).sort()).toEqual(['a', 'a1', 'a2']);
      expect(await remainingIds(db)).toEqual(ALL.filter((id) => !['a', 'a1', 'a2'].includes(id)));
    });

    it('deletes a leaf alone', async () => {
      const { db } = await open();

      expect(await deleteConnectionTree(db, 'lone')).toEqual(['lone']);
      expect(await remainingIds(db)).toEqual(ALL.filter((id) => id !== 'lone'));
    });

    it('returns nothing for an unknown id and deletes nothing', async () => {
      const { db } = await open();

      expect(await deleteConnectionTree(db, 'missing')).toEqual([]);
      expect(await remainingIds(db)).toEqual(ALL);
    });

    it('deletes nothing when it fails part-way', async () => {
      const database = await open();
      // Leaves go first and the root last, so by the time the root's delete fails the rest of
      // the tree has already been deleted inside the transaction.
      await failDeletionOf(database.db, database.dialect, 'root');

      await expect(deleteConnectionTree(database.db, 'root')).rejects.toThrow(
        /refused by test trigger/,
      );
      expect(await remainingIds(database.db)).toEqual(ALL);
    });

    it("joins the caller's transaction and rolls back with it", async () => {
      const { db } = await open();

      await expect(
        db.transaction().execute(async (trx) => {
          expect((await deleteConnectionTree(trx, 'b')).sort()).toEqual(['b', 'b1']);
          throw new Error('caller gives up');
        }),
      ).rejects.toThrow('caller gives up');
      expect(await remainingIds(db)).toEqual(ALL);
    });

    it('handles wide trees beyond one parameter list', async () => {
      const { db } = await open();
      const children = Array.from({ length: 1200 }, (_, index) => `wide-${index}`);
      await db
        .insertInto('connections')
        .values(
          children.map((id) => ({
            id,
            user_id: 'u1',
            tool_id: 'workspace-tool',
            instance_name: id,
            encrypted_secret: 'iv:ct',
            masked_secret: '••••••••',
            parent_id: 'lone',
            created_at: NOW,
            updated_at: NOW,
          })),
        )
        .execute();

      const deleted = await deleteConnectionTree(db, 'lone');

      expect(deleted).toHaveLength(1201);
      expect(new Set(deleted)).toEqual(new Set(['lone', ...children]));
      expect(await remainingIds(db)).toEqual(ALL.filter((id) => id !== 'lone'));
    });
  });
}
