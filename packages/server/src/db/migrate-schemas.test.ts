import { sql } from 'kysely';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createPostgresTestDatabase, postgresTestUrl } from '#test/db/test-database.js';
import { migrate } from './migrate.js';

const url = postgresTestUrl();

describe.skipIf(!url)('migrations beside another schema on PostgreSQL', () => {
  it("migrates its own schema when another schema already holds kysely's migration tables", async () => {
    // Another app on the same database (here: another gateway schema, fully migrated).
    const other = await createPostgresTestDatabase(url!);
    onTestFinished(other.drop);
    const fresh = await createPostgresTestDatabase(url!, { migrate: false });
    onTestFinished(fresh.drop);

    const applied = await migrate(fresh.database);

    expect(applied.length).toBeGreaterThan(0);
    const { rows } = await sql<{ table_name: string }>`
      select table_name from information_schema.tables
      where table_schema = ${fresh.schema} and table_name like 'kysely_migration%'
      order by table_name`.execute(fresh.database.db);
    expect(rows.map((row) => row.table_name)).toEqual([
      'kysely_migration',
      'kysely_migration_lock',
    ]);
    expect(await migrate(fresh.database)).toEqual([]);
  });
});
