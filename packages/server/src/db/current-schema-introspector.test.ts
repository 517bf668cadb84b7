import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createPostgresTestDatabase,
  type PostgresTestDatabase,
  postgresTestUrl,
} from '#test/db/test-database.js';
import { migrate } from './migrate.js';

const url = postgresTestUrl();
const opened: PostgresTestDatabase[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((test) => test.drop()));
});

async function open(): Promise<PostgresTestDatabase> {
  if (url === undefined) throw new Error('unreachable: the suite skips without TEST_DATABASE_URL');
  const test = await createPostgresTestDatabase(url);
  opened.push(test);
  return test;
}

describe.skipIf(url === undefined)('PostgreSQL introspection of the current schema', () => {
  it("lists the gateway's tables with kysely's metadata, and no other schema's", async () => {
    const ours = await open();
    const other = await open();
    await sql`create table other_only (id serial primary key, note text)`.execute(
      other.database.db,
    );

    const tables = await ours.database.db.introspection.getTables();
    expect(tables.every((table) => table.schema === ours.schema)).toBe(true);
    const names = tables.map((table) => table.name);
    expect(names).toContain('user');
    expect(names).toContain('connections');
    expect(names).not.toContain('other_only');
    expect(names).not.toContain('kysely_migration');

    const withInternal = await ours.database.db.introspection.getTables({
      withInternalKyselyTables: true,
    });
    expect(withInternal.map((table) => table.name)).toContain('kysely_migration');

    const user = tables.find((table) => table.name === 'user');
    expect(user?.columns.find((column) => column.name === 'id')).toMatchObject({
      dataType: 'text',
      isNullable: false,
      isAutoIncrementing: false,
    });
    const otherTables = await other.database.db.introspection.getTables();
    expect(otherTables.find((table) => table.name === 'other_only')?.columns).toMatchObject([
      { name: 'id', dataType: 'int4', isAutoIncrementing: true, hasDefaultValue: true },
      { name: 'note', dataType: 'text', isNullable: true },
    ]);
  });

  it('migrates while other schemas are created and dropped around it', async () => {
    if (url === undefined) return;
    const ours = await open();
    let churning = true;
    // Another application (or test) creating and dropping schemas of its own, as fast as it can.
    const churn = (async () => {
      let rounds = 0;
      while (churning || rounds === 0) {
        const other = await createPostgresTestDatabase(url);
        await other.drop();
        rounds += 1;
      }
      return rounds;
    })();
    try {
      for (let run = 0; run < 40; run += 1) {
        await migrate(ours.database);
        await ours.database.db.introspection.getTables();
      }
    } finally {
      churning = false;
    }
    expect(await churn).toBeGreaterThan(0);
  });
});
