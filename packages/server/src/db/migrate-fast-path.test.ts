/**
 * A start on an up-to-date database costs one read (issue 17 item 5): `migrate()` finds every
 * step recorded and does not run kysely's migrator, which would introspect the tables and take
 * its lock (re-creating its lock table, dropped here to tell).
 */
import { sql } from 'kysely';
import { describe, expect, it, onTestFinished } from 'vitest';
import { databaseTargets } from '#test/db/test-database.js';
import { migrate } from './migrate.js';
import { MIGRATIONS } from './migrations/index.js';
import { readSchemaState } from './schema-state.js';

for (const target of databaseTargets()) {
  describe.skipIf(target.skip)(`migrations on an up-to-date ${target.name}`, () => {
    it('are found applied in one read, without running the migrator', async () => {
      const { database, cleanup } = await target.open();
      onTestFinished(cleanup);
      await database.db.schema.dropTable('kysely_migration_lock').execute();

      const state = await readSchemaState(database);
      expect([...(state?.migrations ?? [])].sort()).toEqual(Object.keys(MIGRATIONS).sort());
      expect(await migrate(database)).toEqual([]);

      const tables = await database.db.introspection.getTables({ withInternalKyselyTables: true });
      expect(tables.map((table) => table.name)).not.toContain('kysely_migration_lock');
    });

    it('runs the migrator when steps are missing from the record', async () => {
      const { database, cleanup } = await target.open();
      onTestFinished(cleanup);
      // The three newest steps, as if the database predated them (kysely refuses a missing step
      // that sorts before one applied): when a step is added, this test moves to it.
      const newest = ['017-plugin-oauth', '018-provider-clients', '019-open-executions-id'];
      expect(Object.keys(MIGRATIONS).sort().slice(-3)).toEqual(newest);
      const { schema } = database.db;
      await schema.dropTable('plugin_oauth_clients').execute();
      // 019 replaces the open records' index of 003.
      await schema.dropIndex('executions_open_started_at_id_idx').execute();
      await schema
        .createIndex('executions_open_started_at_idx')
        .on('executions')
        .column('started_at')
        .where(sql.ref('outcome'), 'is', null)
        .execute();
      // 017 rebuilds two tables keeping their rows: a row it must carry over.
      await database.db
        .insertInto('upstream_oauth_flows')
        .values({
          state_hash: 'kept',
          user_id: 'u',
          source_id: '@notion',
          issuer: 'https://as.example',
          encrypted_verifier: 'v',
          resource: '',
          return_to: '{}',
          expires_at: '2999-01-01T00:00:00.000Z',
        })
        .execute();
      for (const name of newest) {
        await sql`delete from kysely_migration where name = ${name}`.execute(database.db);
      }

      expect((await readSchemaState(database))?.migrations.has(newest[0] as string)).toBe(false);
      expect(await migrate(database)).toEqual(newest);
      const state = await readSchemaState(database);
      expect(newest.every((name) => state?.migrations.has(name))).toBe(true);
      const columns = (await database.db.introspection.getTables())
        .find((table) => table.name === 'plugin_oauth_clients')
        ?.columns.map((column) => column.name);
      expect(columns).toEqual(
        expect.arrayContaining(['provider_id', 'client_id', 'encrypted_client_secret']),
      );
      const kept = await database.db
        .selectFrom('upstream_oauth_flows')
        .select('source_id')
        .execute();
      expect(kept).toEqual([{ source_id: '@notion' }]);
    });
  });
}
