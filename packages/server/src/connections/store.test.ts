import type { Kysely } from 'kysely';
import { describe, expect, it, onTestFinished } from 'vitest';
import { databaseTargets } from '#test/db/test-database.js';
import type { DatabaseSchema } from '../db/index.js';
import {
  createConnection,
  deleteUserConnection,
  findEncryptedSecret,
  listUserConnections,
  type NewConnection,
} from './store.js';

const T0 = new Date('2026-01-02T03:04:05.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

async function addUser(db: Kysely<DatabaseSchema>, id: string) {
  await db
    .insertInto('user')
    .values({ id, name: id, email: `${id}@example.test`, createdAt: T0, updatedAt: T0 })
    .execute();
}

function input(overrides: Partial<NewConnection> = {}): NewConnection {
  return {
    userId: 'u1',
    toolId: 'github',
    instanceName: 'Work',
    encryptedSecret: 'aXY=:Y2lwaGVy',
    maskedSecret: '••••••••1234',
    ...overrides,
  };
}

async function create(db: Kysely<DatabaseSchema>, overrides: Partial<NewConnection> = {}) {
  const result = await createConnection(db, input(overrides));
  if (!result.ok) throw new Error(`expected a connection, got ${result.problem}`);
  return result.connection;
}

for (const target of databaseTargets()) {
  describe.skipIf(target.skip)(`connection store on ${target.name}`, () => {
    async function open() {
      const { database, cleanup } = await target.open();
      onTestFinished(cleanup);
      await addUser(database.db, 'u1');
      await addUser(database.db, 'u2');
      return database.db;
    }

    it('stores a user connection and reads it back', async () => {
      const db = await open();

      const result = await createConnection(
        db,
        input({ description: 'My work account', workspaceId: 'ws-1', now: T0 }),
      );

      expect(result).toEqual({
        ok: true,
        connection: {
          id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          user_id: 'u1',
          owner: 'user',
          tool_id: 'github',
          instance_name: 'Work',
          description: 'My work account',
          encrypted_secret: 'aXY=:Y2lwaGVy',
          masked_secret: '••••••••1234',
          workspace_id: 'ws-1',
          parent_id: null,
          created_at: T0.toISOString(),
          updated_at: T0.toISOString(),
        },
      });
      const stored = await db.selectFrom('connections').selectAll().execute();
      expect(stored).toEqual([result.ok && result.connection]);
    });

    it('refuses an unknown user', async () => {
      const db = await open();
      expect(await createConnection(db, input({ userId: 'nobody' }))).toEqual({
        ok: false,
        problem: 'user_not_found',
      });
    });

    it('nests under a parent of the same user and tool only', async () => {
      const db = await open();
      const parent = await create(db);
      const theirs = await create(db, { userId: 'u2' });

      const child = await create(db, { parentId: parent.id, instanceName: 'Project A' });
      expect(child.parent_id).toBe(parent.id);

      expect(await createConnection(db, input({ parentId: crypto.randomUUID() }))).toEqual({
        ok: false,
        problem: 'parent_not_found',
      });
      expect(await createConnection(db, input({ parentId: theirs.id }))).toEqual({
        ok: false,
        problem: 'parent_not_found',
      });
      expect(await createConnection(db, input({ parentId: parent.id, toolId: 'gitlab' }))).toEqual({
        ok: false,
        problem: 'parent_tool_mismatch',
        parentToolId: 'github',
      });
    });

    it('refuses a team connection as a parent', async () => {
      const db = await open();
      const team = await create(db);
      await db
        .updateTable('connections')
        .set({ owner: 'team' })
        .where('id', '=', team.id)
        .execute();

      expect(await createConnection(db, input({ parentId: team.id, instanceName: 'x' }))).toEqual({
        ok: false,
        problem: 'parent_not_found',
      });
    });

    it('refuses a duplicate name for the same user, tool and parent only', async () => {
      const db = await open();
      const parent = await create(db);

      expect(await createConnection(db, input())).toEqual({ ok: false, problem: 'duplicate' });
      await create(db, { parentId: parent.id });
      expect(await createConnection(db, input({ parentId: parent.id }))).toEqual({
        ok: false,
        problem: 'duplicate',
      });
      // The same name is free under another tool, for another user, and in another case.
      await create(db, { toolId: 'gitlab' });
      await create(db, { userId: 'u2' });
      await create(db, { instanceName: 'work' });
    });

    it('lets exactly one of several concurrent duplicates through', async () => {
      const db = await open();

      const results = await Promise.all(
        Array.from({ length: 6 }, () => createConnection(db, input())),
      );

      expect(results.filter((result) => result.ok)).toHaveLength(1);
      expect(results.filter((result) => !result.ok)).toEqual(
        Array.from({ length: 5 }, () => ({ ok: false, problem: 'duplicate' })),
      );
    });

    it("lists the user's own connections, oldest first, without description or secret", async () => {
      const db = await open();
      const later = await create(db, { instanceName: 'later', now: at(2) });
      const first = await create(db, { instanceName: 'first', description: 'd', now: at(0) });
      const tieA = await create(db, { instanceName: 'tie a', now: at(1) });
      const tieB = await create(db, { instanceName: 'tie b', now: at(1) });
      await create(db, { userId: 'u2', now: at(0) });
      const team = await create(db, { instanceName: 'team', now: at(0) });
      await db
        .updateTable('connections')
        .set({ owner: 'team' })
        .where('id', '=', team.id)
        .execute();

      const listed = await listUserConnections(db, 'u1');

      const ties = [tieA, tieB].sort((a, b) => (a.id < b.id ? -1 : 1));
      expect(listed.map((row) => row.id)).toEqual([first.id, ...ties.map((t) => t.id), later.id]);
      expect(listed[0]).toEqual({
        id: first.id,
        user_id: 'u1',
        tool_id: 'github',
        instance_name: 'first',
        masked_secret: '••••••••1234',
        workspace_id: null,
        parent_id: null,
        created_at: at(0).toISOString(),
        updated_at: at(0).toISOString(),
      });
      expect(await listUserConnections(db, 'nobody')).toEqual([]);
    });

    it('deletes a three-level tree of the user and leaves a sibling tree intact', async () => {
      const db = await open();
      const root = await create(db, { instanceName: 'root' });
      const child = await create(db, { instanceName: 'child', parentId: root.id });
      const grandchild = await create(db, { instanceName: 'grandchild', parentId: child.id });
      const sibling = await create(db, { instanceName: 'sibling' });
      const siblingChild = await create(db, {
        instanceName: 'sibling child',
        parentId: sibling.id,
      });

      expect(await deleteUserConnection(db, 'u1', root.id)).toEqual([
        root.id,
        child.id,
        grandchild.id,
      ]);
      expect((await listUserConnections(db, 'u1')).map((row) => row.id).sort()).toEqual(
        [sibling.id, siblingChild.id].sort(),
      );
    });

    it("deletes nothing of another user's, nor an unknown id", async () => {
      const db = await open();
      const theirs = await create(db, { userId: 'u2' });

      expect(await deleteUserConnection(db, 'u1', theirs.id)).toEqual([]);
      expect(await deleteUserConnection(db, 'u1', crypto.randomUUID())).toEqual([]);
      expect(await listUserConnections(db, 'u2')).toHaveLength(1);
    });

    it('finds the encrypted secret of any connection by id', async () => {
      const db = await open();
      const connection = await create(db, { encryptedSecret: 'c3Q=:b3JlZA==' });

      expect(await findEncryptedSecret(db, connection.id)).toBe('c3Q=:b3JlZA==');
      expect(await findEncryptedSecret(db, crypto.randomUUID())).toBeUndefined();
    });
  });
}
