import type pg from 'pg';
import { newSchemaName } from './schema-run.js';
import { withClient } from './with-client.js';

/**
 * Migrated PostgreSQL test schemas kept for reuse within one worker process: creating a schema
 * and running every migration was the largest cost of the PostgreSQL tests (issue 35). A schema
 * a test is done with is reset to the just-migrated state and renamed, then handed to the next
 * test of the worker that asks for a migrated schema; the run drops them when it ends
 * (`schema-run.ts`).
 *
 * Reset: every table but kysely's two is truncated (`restart identity`), every sequence
 * restarted, and the rows the migrations seed (the `member` and `admin` roles) put back as they
 * were when this worker first migrated a schema. Only a schema whose shape (tables, columns,
 * defaults, constraints, indexes, sequences, functions, triggers, ...) and migration record
 * still match the just-migrated ones is reused; one a test altered, dropped tables from,
 * migrated further (better-auth options that add columns) or left half-migrated is dropped.
 * The new name cuts off anything of the last test still connected (its `search_path` names a
 * schema that is gone, as after a drop) and gives the next test's gateways their own
 * `LISTEN` channel (the session bus names its channel after the schema).
 */

/** A worker's free schemas on one database, and what a just-migrated schema looks like there. */
interface Pool {
  free: string[];
  pristine?: Pristine;
}

interface Pristine {
  /** {@link SHAPE}'s answer for a just-migrated schema. */
  shape: string;
  /** What kysely's tables hold just after migrating. */
  record: string;
  /** The rows the migrations seed, as JSON, by table. */
  seed: ReadonlyMap<string, string>;
}

/** The tables a reset leaves alone: kysely's record of the migrations and its lock row. */
const BOOKKEEPING = new Set(['kysely_migration', 'kysely_migration_lock']);

const pools = new Map<string, Pool>();

function poolOf(url: string): Pool {
  let pool = pools.get(url);
  if (pool === undefined) {
    pool = { free: [] };
    pools.set(url, pool);
  }
  return pool;
}

/** A reset, migrated schema of this worker's on `url`'s database, if one is free. */
export function takeMigratedSchema(url: string): string | undefined {
  return poolOf(url).free.pop();
}

/**
 * Remembers `schema` as what a just-migrated schema looks like, unless this worker already
 * knows. Call it right after migrating a new schema, before anything else writes to it.
 */
export async function notePristine(url: string, schema: string): Promise<void> {
  const pool = poolOf(url);
  if (pool.pristine !== undefined) return;
  pool.pristine = await withClient(url, async (client) => {
    const { shape, tables } = await readShape(client, schema);
    const seed = new Map<string, string>();
    for (const table of tables) {
      if (BOOKKEEPING.has(table)) continue;
      const { rows } = await client.query<{ rows: string | null }>(
        `select json_agg(t)::text as rows from "${schema}"."${table}" t`,
      );
      if (rows[0]?.rows) seed.set(table, rows[0].rows);
    }
    return { shape, record: await readRecord(client, schema), seed };
  });
}

/**
 * Takes back a schema a test is done with (its connections closed): resets it and keeps it,
 * under a new name, for the next test; or drops it when it no longer looks just migrated, or the
 * reset fails.
 */
export async function releaseSchema(url: string, schema: string): Promise<void> {
  const pool = poolOf(url);
  const reset = await withClient(url, async (client) => {
    const kept = pool.pristine && (await resetSchema(client, schema, pool.pristine));
    if (!kept) await client.query(`drop schema if exists "${schema}" cascade`);
    return kept;
  });
  if (reset) pool.free.push(reset);
}

/** The schema's new name after resetting it, or undefined when it cannot be reused. */
async function resetSchema(
  client: pg.Client,
  schema: string,
  pristine: Pristine,
): Promise<string | undefined> {
  const { shape, tables, sequences } = await readShape(client, schema);
  if (shape !== pristine.shape || (await readRecord(client, schema)) !== pristine.record) {
    return undefined;
  }
  const renamed = newSchemaName();
  const name = (table: string) => `"${schema}"."${table}"`;
  // Truncating an empty table changes nothing but costs new files for it and its indexes: only
  // the tables with rows (a handful after most tests) are truncated, and the sequences used.
  const filled = await tablesWithRows(
    client,
    tables.filter((table) => !BOOKKEEPING.has(table)).map(name),
  );
  const statements = [
    'begin',
    // A connection the last test left in a transaction holds its locks: give up, and drop.
    `set local lock_timeout = '5s'`,
    ...(filled.length > 0 ? [`truncate table ${filled.join(', ')} restart identity cascade`] : []),
    ...sequences.map((sequence) => `alter sequence ${name(sequence)} restart`),
    ...[...pristine.seed].map(
      ([table, rows]) =>
        `insert into ${name(table)} select * from json_populate_recordset(null::${name(table)}, ${client.escapeLiteral(rows)})`,
    ),
    `alter schema "${schema}" rename to "${renamed}"`,
    'commit',
  ];
  try {
    await client.query(statements.join(';\n'));
    return renamed;
  } catch {
    await client.query('rollback').catch(() => undefined);
    return undefined;
  }
}

/** Those of `tables` (qualified, quoted names) that hold a row, read in one statement. */
async function tablesWithRows(client: pg.Client, tables: readonly string[]): Promise<string[]> {
  if (tables.length === 0) return [];
  const { rows } = await client.query<{ name: string }>(
    tables
      .map(
        (table) =>
          `select ${client.escapeLiteral(table)} as name where exists (select from ${table})`,
      )
      .join(' union all '),
  );
  return rows.map((row) => row.name);
}

/**
 * One line per part of a schema's shape, hashed: its relations, columns with their types and
 * defaults, constraints, indexes, triggers, policies, views, sequences, functions and types,
 * with the schema's own name taken out (it changes on every reuse).
 */
const SHAPE = `
with rels as (
  select c.oid, c.relname, c.relkind from pg_class c
  join pg_namespace n on n.oid = c.relnamespace where n.nspname = $1::text
), lines as (
  select format('rel %s %s %s %s %s', c.relname, c.relkind, c.relpersistence, c.relrowsecurity,
    c.reloptions) as line
    from pg_class c join rels using (oid)
  union all select format('col %s.%s %s %s %s %s %s %s', r.relname, a.attname,
    format_type(a.atttypid, a.atttypmod), a.attnotnull, a.attidentity, a.attgenerated,
    a.attcollation, pg_get_expr(d.adbin, d.adrelid))
    from pg_attribute a join rels r on r.oid = a.attrelid
    left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
    where a.attnum > 0 and not a.attisdropped
  union all select format('con %s %s %s', r.relname, c.conname, pg_get_constraintdef(c.oid))
    from pg_constraint c join rels r on r.oid = c.conrelid
  union all select format('idx %s', pg_get_indexdef(i.indexrelid))
    from pg_index i join rels r on r.oid = i.indrelid
  union all select format('trg %s', pg_get_triggerdef(t.oid))
    from pg_trigger t join rels r on r.oid = t.tgrelid where not t.tgisinternal
  union all select format('pol %s %s %s %s', r.relname, p.polname, p.polcmd,
    pg_get_expr(p.polqual, p.polrelid))
    from pg_policy p join rels r on r.oid = p.polrelid
  union all select format('view %s %s', r.relname, pg_get_viewdef(r.oid))
    from rels r where r.relkind in ('v', 'm')
  union all select format('seq %s %s %s %s %s %s %s', r.relname, s.seqtypid::regtype, s.seqstart,
    s.seqincrement, s.seqmin, s.seqmax, s.seqcycle)
    from pg_sequence s join rels r on r.oid = s.seqrelid
  union all select format('fn %s(%s) %s', p.proname, pg_get_function_identity_arguments(p.oid),
    md5(p.prosrc))
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = $1::text
  union all select format('type %s %s', t.typname, t.typtype)
    from pg_type t join pg_namespace n on n.oid = t.typnamespace
    where n.nspname = $1::text and t.typtype in ('d', 'e', 'm', 'r')
)
select
  md5(coalesce(string_agg(replace(line, $1::text || '.', ''), e'\\n' order by line), '')) as shape,
  coalesce((select array_agg(relname::text order by relname) from rels where relkind in ('r', 'p')),
    '{}') as tables,
  coalesce((select array_agg(sequencename::text order by sequencename) from pg_sequences
    where schemaname = $1::text and last_value is not null), '{}') as sequences
from lines`;

async function readShape(client: pg.Client, schema: string) {
  const { rows } = await client.query<{ shape: string; tables: string[]; sequences: string[] }>(
    SHAPE,
    [schema],
  );
  const row = rows[0];
  if (row === undefined) throw new Error(`no shape read for schema ${schema}`);
  return row;
}

/** kysely's tables, as text: the migrations applied and the lock row. */
async function readRecord(client: pg.Client, schema: string): Promise<string> {
  const { rows } = await client.query<{ record: string | null }>(
    `select (select string_agg(name, ',' order by name) from "${schema}".kysely_migration)
      || ' ' || (select string_agg(id || '=' || is_locked, ',' order by id)
      from "${schema}".kysely_migration_lock) as record`,
  );
  return rows[0]?.record ?? '';
}
