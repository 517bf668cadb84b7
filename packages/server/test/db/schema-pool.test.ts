import { sql } from 'kysely';
import pg from 'pg';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { GatewayDatabase } from '../../src/db/database.js';
import { shapeChecks } from './schema-pool.js';
import { startSchemaRun } from './schema-run.js';
import { readFingerprint, readShape } from './schema-shape.js';
import {
  createPostgresTestDatabase,
  type PostgresTestDatabase,
  postgresTestUrl,
} from './test-database.js';

// Issue 35: migrated test schemas are reused within a worker, reset to the just-migrated state.
const url = postgresTestUrl();

async function query<T>(database: GatewayDatabase, text: string): Promise<T[]> {
  const { rows } = await sql.raw<T>(text).execute(database.db);
  return rows;
}

/** The oid of the schema's `roles` table: the same table after a reuse, a new one after a drop. */
async function rolesOid(database: GatewayDatabase): Promise<number> {
  const [row] = await query<{ oid: number }>(database, `select 'roles'::regclass::oid as oid`);
  return Number(row?.oid);
}

async function schemaExists(schema: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query('select 1 from pg_namespace where nspname = $1', [schema]);
    return rows.length === 1;
  } finally {
    await client.end();
  }
}

/** Records an MCP session event, returning its id (from a `bigserial`). */
async function addEvent(database: GatewayDatabase): Promise<unknown> {
  await query(
    database,
    `insert into mcp_sessions (id, owner, init_params, created_at, last_seen)
      values ('s', 'o', '{}', 'now', 'now') on conflict do nothing`,
  );
  const [row] = await query<{ id: unknown }>(
    database,
    `insert into mcp_session_events (session_id, stream_id, instance, message, created_at)
      values ('s', 't', 'i', 'm', 'now') returning id`,
  );
  return row?.id;
}

/** Puts something in every kind of state a test leaves: rows, sequence values, schema_state. */
async function dirty(database: GatewayDatabase): Promise<void> {
  await query(database, `delete from roles where id = 'member'`);
  await query(database, `update roles set name = 'Changed' where id = 'admin'`);
  await query(database, `insert into schema_state (name, value) values ('better-auth', 'x')`);
  await addEvent(database);
  await addEvent(database);
}

describe.skipIf(!url || !process.env.GATEWAY_TEST_SCHEMA_RUN)('reused test schemas', () => {
  it('hands a released schema to the next test as just migrated, under a new name', async () => {
    const fresh = await createPostgresTestDatabase(url as string);
    const oid = await rolesOid(fresh.database);
    const roles = await query(fresh.database, 'select * from roles order by id');
    await dirty(fresh.database);
    await fresh.drop();
    expect(await schemaExists(fresh.schema)).toBe(false);

    const reused = await createPostgresTestDatabase(url as string);
    onTestFinished(reused.drop);
    expect(reused.schema).not.toBe(fresh.schema);
    expect(await rolesOid(reused.database)).toBe(oid);
    expect(await query(reused.database, 'select * from roles order by id')).toEqual(roles);
    expect(await query(reused.database, 'select * from schema_state')).toEqual([]);
    expect(await query(reused.database, 'select * from mcp_sessions')).toEqual([]);
    expect(await addEvent(reused.database)).toBe('1');
  });

  it('tells a reset schema no test changed from its catalog fingerprint, without reading its whole shape', async () => {
    const first = await createPostgresTestDatabase(url as string);
    const oid = await rolesOid(first.database);
    await dirty(first.database);
    await first.drop();

    const second = await reusedAfterReset();
    const checks = { ...shapeChecks };
    await dirty(second.database);
    await second.drop();
    expect(shapeChecks).toEqual({ full: checks.full, fingerprint: checks.fingerprint + 1 });

    const third = await createPostgresTestDatabase(url as string);
    onTestFinished(third.drop);
    expect(await rolesOid(third.database)).toBe(oid);
    expect(await query(third.database, 'select * from schema_state')).toEqual([]);
    expect(await addEvent(third.database)).toBe('1');
  });

  it.each([
    ['a table altered', 'alter table roles add column extra text'],
    ['a table dropped', 'drop table refresh_leases'],
    ['an index added', 'create index roles_name_idx on roles (name)'],
    ['a migration unrecorded', `delete from kysely_migration where name like '018%'`],
  ])('drops a schema with %s instead of reusing it', async (_, change) => {
    // A schema that has been reset before, so its fingerprint is what tells the change first.
    const changed = await reusedAfterReset();
    const oid = await rolesOid(changed.database);
    await query(changed.database, change);
    await changed.drop();
    expect(await schemaExists(changed.schema)).toBe(false);

    const next = await createPostgresTestDatabase(url as string);
    onTestFinished(next.drop);
    expect(await rolesOid(next.database)).not.toBe(oid);
  });

  it('gives a test that migrates itself a new, empty schema even when one is free', async () => {
    const migrated = await createPostgresTestDatabase(url as string);
    await migrated.drop();

    const empty = await createPostgresTestDatabase(url as string, { migrate: false });
    onTestFinished(empty.drop);
    expect(
      await query(empty.database, 'select * from pg_tables where schemaname = current_schema()'),
    ).toEqual([]);
  });

  it('deletes the few rows a test wrote, and truncates a table it filled past 256 kB', async () => {
    const used = await createPostgresTestDatabase(url as string);
    await query(used.database, `insert into schema_state (name, value) values ('a', 'b')`);
    await query(
      used.database,
      `insert into mcp_sessions (id, owner, init_params, created_at, last_seen)
        select 's' || n, repeat('o', 200), '{}', 'now', 'now' from generate_series(1, 2000) n`,
    );
    const size = (database: GatewayDatabase, table: string) =>
      query<{ bytes: string }>(database, `select pg_relation_size('${table}') as bytes`).then(
        ([row]) => Number(row?.bytes),
      );
    const stateBytes = await size(used.database, 'schema_state');
    expect(await size(used.database, 'mcp_sessions')).toBeGreaterThan(256 * 1024);
    await used.drop();

    const reused = await createPostgresTestDatabase(url as string);
    onTestFinished(reused.drop);
    expect(await query(reused.database, 'select * from schema_state')).toEqual([]);
    expect(await query(reused.database, 'select * from mcp_sessions')).toEqual([]);
    // Deleted from: its pages stay. Truncated: a new, empty file.
    expect(await size(reused.database, 'schema_state')).toBe(stateBytes);
    expect(await size(reused.database, 'mcp_sessions')).toBe(0);
  });
});

/** A migrated schema that went through a reset at least once (its fingerprint is known). */
async function reusedAfterReset(): Promise<PostgresTestDatabase> {
  const first = await createPostgresTestDatabase(url as string);
  const oid = await rolesOid(first.database);
  await first.drop();
  const reused = await createPostgresTestDatabase(url as string);
  expect(await rolesOid(reused.database)).toBe(oid);
  return reused;
}

describe.skipIf(!url)("a test schema's catalog fingerprint", () => {
  let client: pg.Client;
  let schema: string;
  beforeAll(async () => {
    const database = await createPostgresTestDatabase(url as string);
    schema = database.schema;
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client.query('begin');
    return async () => {
      await client.end();
      await database.drop();
    };
  });

  /** Runs `use` in a savepoint rolled back afterwards, DDL and all. */
  async function inRolledBack(use: (client: pg.Client, schema: string) => Promise<void>) {
    await client.query('savepoint change');
    try {
      await use(client, schema);
    } finally {
      await client.query('rollback to savepoint change');
    }
  }

  it('stays the same while tests only read and write rows and use sequences', async () => {
    await inRolledBack(async (client, schema) => {
      const before = await readFingerprint(client, schema);
      await client.query(`insert into schema_state (name, value) values ('a', 'b')`);
      await client.query(`update roles set name = 'Changed' where id = 'admin'`);
      await client.query(`delete from roles where id = 'member'`);
      await client.query(`select nextval('mcp_session_events_id_seq')`);
      await client.query('analyze roles');
      const after = await readFingerprint(client, schema);
      expect(after.fingerprint).toBe(before.fingerprint);
      expect(after.sequences).toEqual(['mcp_session_events_id_seq']);
    });
  });

  // Every kind of change the full shape sees changes the fingerprint too.
  it.each([
    ['a column added', 'alter table roles add column extra text'],
    ['a column dropped', 'alter table schema_state drop column value'],
    ['a column type changed', 'alter table schema_state alter column value type varchar(99)'],
    ['a default set', `alter table roles alter column name set default 'x'`],
    ['a not-null dropped', 'alter table roles alter column name drop not null'],
    ['a check added', "alter table roles add constraint named check (name <> '')"],
    ['a table dropped', 'drop table refresh_leases'],
    ['a table created', 'create table extra (id int)'],
    ['an index added', 'create index roles_name_idx on roles (name)'],
    ['row-level security enabled', 'alter table roles enable row level security'],
    ['a view created', 'create view role_names as select name from roles'],
    ['a sequence changed', 'alter sequence mcp_session_events_id_seq increment by 2'],
    ['a type created', `create type mood as enum ('happy')`],
    [
      'a trigger added',
      `create function touch() returns trigger language plpgsql as 'begin return new; end';
       create trigger touch before update on roles for each row execute function touch()`,
    ],
  ])('changes with %s', async (_, change) => {
    await inRolledBack(async (client, schema) => {
      const shape = await readShape(client, schema);
      const before = await readFingerprint(client, schema);
      await client.query(change);
      expect((await readShape(client, schema)).shape).not.toBe(shape.shape);
      expect((await readFingerprint(client, schema)).fingerprint).not.toBe(before.fingerprint);
    });
  });
});

describe.skipIf(!url)('test schema runs', () => {
  it('drops the schemas of runs that ended, and its own when it ends, not those of live runs', async () => {
    const live = await startSchemaRun(url as string);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    onTestFinished(() => client.end());
    const ended = 'gw_test_00000000_0123456789ab';
    const ofLive = `gw_test_${live.run}_0123456789ab`;
    for (const schema of [ended, ofLive]) await client.query(`create schema "${schema}"`);

    const other = await startSchemaRun(url as string);
    expect(await schemaExists(ended)).toBe(false);
    expect(await schemaExists(ofLive)).toBe(true);
    await other.end();

    await live.end();
    expect(await schemaExists(ofLive)).toBe(false);
  });
});
