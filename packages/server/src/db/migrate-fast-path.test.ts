/**
 * A start on an up-to-date database costs one read (issue 17 item 5): `migrate()` finds every
 * step recorded and does not run kysely's migrator, which would introspect the tables and take
 * its lock (re-creating its lock table, dropped here to tell).
 */
import { sql } from 'kysely';
import { describe, expect, it, onTestFinished } from 'vitest';
import { databaseTargets } from '#test/db/test-database.js';
import { migrate } from './migrate.js';
import { migrations } from './migrations/index.js';
import { readSchemaState } from './schema-state.js';

for (const target of databaseTargets()) {
  describe.skipIf(target.skip)(`migrations on an up-to-date ${target.name}`, () => {
    it('are found applied in one read, without running the migrator', async () => {
      const { database, cleanup } = await target.open();
      onTestFinished(cleanup);
      await database.db.schema.dropTable('kysely_migration_lock').execute();

      const state = await readSchemaState(database);
      expect([...(state?.migrations ?? [])].sort()).toEqual(Object.keys(migrations).sort());
      expect(await migrate(database)).toEqual([]);

      const tables = await database.db.introspection.getTables({ withInternalKyselyTables: true });
      expect(tables.map((table) => table.name)).not.toContain('kysely_migration_lock');
    });

    it('runs the migrator when a step is missing from the record', async () => {
      const { database, cleanup } = await target.open();
      onTestFinished(cleanup);
      // The newest step, as if the database predated it (kysely refuses a missing step that sorts
      // before one applied): when a step is added, this test moves to it.
      const newest = '011-upstream-oauth-scopes';
      expect(Object.keys(migrations).sort().at(-1)).toBe(newest);
      await database.db.schema.dropTable('upstream_oauth_scopes').execute();
      await sql`delete from kysely_migration where name = ${newest}`.execute(database.db);

      expect((await readSchemaState(database))?.migrations.has(newest)).toBe(false);
      expect(await migrate(database)).toEqual([newest]);
      expect((await readSchemaState(database))?.migrations.has(newest)).toBe(true);
    });
  });
}
