import { sql } from 'kysely';
import { describe, expect, it, onTestFinished } from 'vitest';
import { databaseTargets } from '#test/db/test-database.js';
import { prepareQuery } from './prepared-query.js';

for (const target of databaseTargets()) {
  describe.skipIf(target.skip)(`prepared queries on ${target.name}`, () => {
    async function open() {
      const { database, cleanup } = await target.open();
      onTestFinished(cleanup);
      return database.db;
    }

    it('runs one compiled query with new values each time, keeping its constants', async () => {
      const db = await open();
      await db
        .insertInto('roles')
        .values(
          ['viewer', 'editor'].map((id) => ({
            id,
            name: id.toUpperCase(),
            patterns: '[]',
            created_at: '2026-01-01T00:00:00.000Z',
            updated_at: '2026-01-01T00:00:00.000Z',
          })),
        )
        .execute();
      const byId = prepareQuery(db, ['id'], (param) =>
        db
          .selectFrom('roles')
          .select(['id', 'name'])
          .where('id', '=', param('id'))
          .where('patterns', '=', '[]'),
      );

      expect(await byId({ id: 'viewer' })).toEqual([{ id: 'viewer', name: 'VIEWER' }]);
      expect(await byId({ id: 'editor' })).toEqual([{ id: 'editor', name: 'EDITOR' }]);
      expect(await byId({ id: 'nobody' })).toEqual([]);
    });

    it('compiles on its first run, not when prepared, and once', async () => {
      const db = await open();
      let builds = 0;
      const byId = prepareQuery(db, ['id'], (param) => {
        builds += 1;
        return db.selectFrom('roles').select(['id']).where('id', '=', param('id'));
      });
      expect(builds).toBe(0);

      await byId({ id: 'viewer' });
      await byId({ id: 'editor' });
      expect(builds).toBe(1);
    });

    it('refuses a name whose stand-in kysely writes into the SQL instead of binding it', async () => {
      const db = await open();
      const query = prepareQuery(db, ['table'], (param) =>
        db.selectFrom('roles').select(sql.ref(param('table')).as('x')),
      );

      await expect(query({ table: 'roles' })).rejects.toThrow(/"table" is not a parameter/);
      await expect(query({ table: 'roles' })).rejects.toThrow(/"table" is not a parameter/);
    });
  });
}
