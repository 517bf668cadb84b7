import { Socket } from 'node:net';
import pg from 'pg';
import { newSchemaName } from './schema-run.js';
import { readFingerprint, readShape } from './schema-shape.js';

/**
 * Migrated PostgreSQL test schemas kept for reuse within one worker process: creating a schema
 * and running every migration was the largest cost of the PostgreSQL tests (issue 35). A schema
 * a test is done with is reset to the just-migrated state and renamed, then handed to the next
 * test of the worker that asks for a migrated schema; the run drops them when it ends
 * (`schema-run.ts`).
 *
 * Reset: every table but kysely's two that a test changed is emptied, every sequence it used
 * set back to its start, and the rows the migrations seed (the `member` and `admin` roles) put
 * back as they were when this worker first migrated a schema. Only a schema whose shape (tables, columns,
 * defaults, constraints, indexes, sequences, functions, triggers, ...) and migration record
 * still match the just-migrated ones is reused; one a test altered, dropped tables from,
 * migrated further (better-auth options that add columns) or left half-migrated is dropped.
 * The shape is read in full (`schema-shape.ts`) the first time a schema comes back; after
 * that, a fingerprint of its catalog rows taken at its last reset tells cheaply that no test
 * changed it since, and only a changed fingerprint has the full shape read again.
 * The new name cuts off anything of the last test still connected (its `search_path` names a
 * schema that is gone, as after a drop) and gives the next test's gateways their own
 * `LISTEN` channel (the session bus names its channel after the schema).
 *
 * The worker keeps one connection for all of this (a new one per reset, with its empty catalog
 * caches, cost more than the reset), its socket unreferenced so it never holds a worker up.
 */

/** A worker's free schemas on one database, and what a just-migrated schema looks like there. */
interface Pool {
  free: string[];
  pristine?: Pristine;
  /** Each free schema's catalog fingerprint, as its reset left it. */
  fingerprints: Map<string, string>;
  session: Session;
}

interface Pristine {
  /** `readShape`'s answer for a just-migrated schema. */
  shape: string;
  /** Its tables. */
  tables: readonly string[];
  /** What kysely's tables hold just after migrating. */
  record: string;
  /** The rows the migrations seed, as JSON, by table. */
  seed: ReadonlyMap<string, string>;
  /** Whether the worker's role may turn foreign-key triggers off (a superuser's). */
  superuser: boolean;
}

/** The tables a reset leaves alone: kysely's record of the migrations and its lock row. */
const BOOKKEEPING = new Set(['kysely_migration', 'kysely_migration_lock']);

const pools = new Map<string, Pool>();

/** Counts of the full shape reads and fingerprint reads of this worker, for the pool's tests. */
export const shapeChecks = { full: 0, fingerprint: 0 };

function poolOf(url: string): Pool {
  let pool = pools.get(url);
  if (pool === undefined) {
    pool = { free: [], fingerprints: new Map(), session: new Session(url) };
    pools.set(url, pool);
  }
  return pool;
}

/** A reset, migrated schema of this worker's on `url`'s database, if one is free. */
export function takeMigratedSchema(url: string): string | undefined {
  return poolOf(url).free.pop();
}

/** Creates the empty schema `schema` on the worker's connection to `url`. */
export async function createSchema(url: string, schema: string): Promise<void> {
  await poolOf(url).session.use((client) => client.query(`create schema "${schema}"`));
}

/**
 * Remembers `schema` as what a just-migrated schema looks like, unless this worker already
 * knows. Call it right after migrating a new schema, before anything else writes to it.
 */
export async function notePristine(url: string, schema: string): Promise<void> {
  const pool = poolOf(url);
  if (pool.pristine !== undefined) return;
  pool.pristine = await pool.session.use(async (client) => {
    const { shape, tables } = await readShape(client, schema);
    shapeChecks.full++;
    const seed = new Map<string, string>();
    for (const table of tables) {
      if (BOOKKEEPING.has(table)) continue;
      const { rows } = await client.query<{ rows: string | null }>(
        `select json_agg(t)::text as rows from "${schema}"."${table}" t`,
      );
      if (rows[0]?.rows) seed.set(table, rows[0].rows);
    }
    const { rows } = await client.query<{ superuser: boolean }>(
      `select current_setting('is_superuser') = 'on' as superuser`,
    );
    const superuser = rows[0]?.superuser === true;
    return { shape, tables, record: await readRecord(client, schema), seed, superuser };
  });
}

/**
 * Takes back a schema a test is done with (its connections closed): resets it and keeps it,
 * under a new name, for the next test; or drops it when it no longer looks just migrated, or the
 * reset fails.
 */
export async function releaseSchema(url: string, schema: string): Promise<void> {
  const pool = poolOf(url);
  const fingerprint = pool.fingerprints.get(schema);
  pool.fingerprints.delete(schema);
  const reset = await pool.session.use(async (client) => {
    const kept = pool.pristine
      ? await resetSchema(client, schema, pool.pristine, fingerprint)
      : undefined;
    if (!kept) await client.query(`drop schema if exists "${schema}" cascade`);
    return kept;
  });
  if (reset === undefined) return;
  pool.fingerprints.set(reset.schema, reset.fingerprint);
  pool.free.push(reset.schema);
}

/**
 * The schema's new name and fingerprint after resetting it, or undefined when it cannot be
 * reused. `fingerprint` is the one its last reset left, if it was reset before.
 */
async function resetSchema(
  client: pg.Client,
  schema: string,
  pristine: Pristine,
  fingerprint: string | undefined,
): Promise<{ schema: string; fingerprint: string } | undefined> {
  const unchanged = await unchangedShape(client, schema, pristine, fingerprint);
  if (unchanged === undefined) return undefined;
  const { sequences } = unchanged;
  const name = (table: string) => `"${schema}"."${table}"`;
  const { record, changed, large } = await readContents(client, name, pristine);
  if (record !== pristine.record) return undefined;
  const renamed = newSchemaName();
  const truncated = pristine.superuser ? large : changed;
  const statements = resetStatements(
    client,
    { schema, renamed, changed, truncated, sequences },
    pristine,
  );
  try {
    await client.query(statements.join(';\n'));
    // A delete, a setval, an insert and the rename write none of the catalog rows the
    // fingerprint reads, so a schema known by its fingerprint keeps it. Else (its shape read in
    // full, or a truncate: new files and catalog rows for each table) it is read after the
    // reset; nothing else knows the new name yet.
    const kept = truncated.length === 0 ? unchanged.fingerprint : undefined;
    return {
      schema: renamed,
      fingerprint: kept ?? (await readFingerprint(client, renamed)).fingerprint,
    };
  } catch {
    await client.query('rollback').catch(() => undefined);
    return undefined;
  }
}

/** The statements, in one transaction, that reset `schema` and rename it to `renamed`. */
function resetStatements(
  client: pg.Client,
  reset: {
    schema: string;
    renamed: string;
    changed: string[];
    truncated: string[];
    sequences: string[];
  },
  pristine: Pristine,
): string[] {
  const { schema, renamed, changed, truncated, sequences } = reset;
  const name = (table: string) => `"${schema}"."${table}"`;
  return [
    'begin',
    // A connection the last test left in a transaction holds its locks: give up, and drop.
    `set local lock_timeout = '5s'`,
    // Nothing of a test schema needs to outlive a crash of the server: don't wait for the disk.
    'set local synchronous_commit = off',
    // Only the tables a test changed are emptied (a handful after most tests; the seeded roles
    // rarely), and the sequences used are set back without rewriting them.
    ...emptyTables(changed.map(name), truncated.map(name)),
    ...sequences.map(
      (sequence) =>
        `select setval(${client.escapeLiteral(name(sequence))}, seqstart, false) from pg_sequence where seqrelid = ${client.escapeLiteral(name(sequence))}::regclass`,
    ),
    // A seeded table emptied (by a truncate, itself or by the cascade) is empty: its seed goes
    // back in.
    ...[...pristine.seed].map(
      ([table, rows]) =>
        `insert into ${name(table)} select * from json_populate_recordset(null::${name(table)}, ${client.escapeLiteral(rows)}) where not exists (select from ${name(table)})`,
    ),
    `alter schema "${schema}" rename to "${renamed}"`,
    'commit',
  ];
}

/**
 * A changed table whose heap is larger than this (32 pages) is truncated, not deleted from: the
 * test server runs without autovacuum, so the dead rows of a big delete would stay for every
 * later test of the worker on that schema to scan past.
 */
const LARGE_TABLE_BYTES = 256 * 1024;

/**
 * The statements that empty `tables`, truncating those of `truncated` (cascading). A `delete` of
 * a test's few rows takes a few ms, where `truncate` gives each table and each of its indexes
 * new files and catalog rows: 150-900 ms a reset on the shared test server, the largest part of
 * a PostgreSQL test's time (issue 35). So the rest are deleted from with the foreign-key
 * triggers off (`session_replication_role = replica`, a superuser's, as the test databases'
 * `postgres` role is; another role truncates every table): every table holding rows other than
 * its seed is emptied, and seed rows reference only seed rows, so no reference is left dangling.
 */
function emptyTables(tables: readonly string[], truncated: readonly string[]): string[] {
  const deleted = tables.filter((table) => !truncated.includes(table));
  return [
    ...(truncated.length > 0 ? [`truncate table ${truncated.join(', ')} cascade`] : []),
    ...(deleted.length > 0 ? ['set local session_replication_role = replica'] : []),
    ...deleted.map((table) => `delete from ${table}`),
  ];
}

/**
 * The schema's used sequences (and its fingerprint, when that is what told) when its shape is
 * still the just-migrated one, else undefined: its catalog fingerprint is the one its last reset
 * left, or else its full shape is the pristine one.
 */
async function unchangedShape(
  client: pg.Client,
  schema: string,
  pristine: Pristine,
  fingerprint: string | undefined,
): Promise<{ sequences: string[]; fingerprint?: string } | undefined> {
  if (fingerprint !== undefined) {
    const now = await readFingerprint(client, schema);
    shapeChecks.fingerprint++;
    if (now.fingerprint === fingerprint) return now;
  }
  const { shape, sequences } = await readShape(client, schema);
  shapeChecks.full++;
  return shape === pristine.shape ? { sequences } : undefined;
}

/**
 * kysely's record ({@link readRecord}) and the tables a test changed: those holding a row that
 * the migrations seed none in, and the seeded ones holding other rows than their seed. One round
 * trip, for a schema known to have the pristine shape.
 */
async function readContents(
  client: pg.Client,
  name: (table: string) => string,
  pristine: Pristine,
): Promise<{ record: string; changed: string[]; large: string[] }> {
  const changed = pristine.tables
    .filter((table) => !BOOKKEEPING.has(table))
    .map((table) => {
      const seed = pristine.seed.get(table);
      const condition =
        seed === undefined
          ? `exists (select from ${name(table)})`
          : `(select json_agg(t)::text from ${name(table)} t) is distinct from ${client.escapeLiteral(seed)}`;
      const large = `pg_relation_size(${client.escapeLiteral(name(table))}) > ${LARGE_TABLE_BYTES}`;
      return `select ${client.escapeLiteral(table)} as name, ${large} as large where ${condition}`;
    });
  const [record, tables] = (await client.query(
    [recordQuery(name), changed.join(' union all ')].join(';\n'),
  )) as unknown as [
    pg.QueryResult<{ record: string | null }>,
    pg.QueryResult<{ name: string; large: boolean }>,
  ];
  return {
    record: record.rows[0]?.record ?? '',
    changed: tables.rows.map((row) => row.name),
    large: tables.rows.filter((row) => row.large).map((row) => row.name),
  };
}

/** kysely's tables, as text: the migrations applied and the lock row. */
async function readRecord(client: pg.Client, schema: string): Promise<string> {
  const { rows } = await client.query<{ record: string | null }>(
    recordQuery((table) => `"${schema}"."${table}"`),
  );
  return rows[0]?.record ?? '';
}

function recordQuery(name: (table: string) => string): string {
  return `select (select string_agg(name, ',' order by name) from ${name('kysely_migration')})
      || ' ' || (select string_agg(id || '=' || is_locked, ',' order by id)
      from ${name('kysely_migration_lock')}) as record`;
}

/**
 * One connection to `url`, opened on first use and again after it broke, running one piece of
 * work at a time (a reset's `begin` ... `commit` must not interleave with another's queries).
 */
class Session {
  #client: Promise<pg.Client> | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly url: string) {}

  use<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
    const done = this.#queue.then(async () => work(await this.#connect()));
    this.#queue = done.catch(() => undefined);
    return done;
  }

  #connect(): Promise<pg.Client> {
    this.#client ??= (async () => {
      const client = new pg.Client({
        connectionString: this.url,
        // Unreferenced: a worker ends when its tests are done, whatever this connection does.
        stream: () => new Socket().unref(),
      });
      const forget = () => {
        this.#client = undefined;
      };
      client.on('error', forget);
      client.on('end', forget);
      try {
        await client.connect();
        // The fingerprint's statement is prepared: plan it once, not on every run.
        await client.query('set plan_cache_mode = force_generic_plan');
      } catch (error) {
        forget();
        throw error;
      }
      return client;
    })();
    return this.#client;
  }
}
