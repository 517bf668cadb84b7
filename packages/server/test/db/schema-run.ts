import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * Set by the test run's global setup (`test/support/schema-run.global-setup.ts`) for its
 * workers: the run's key, 8 hex digits. Its test schemas are named `gw_test_<run>_<hex>`, so the
 * run can drop all of them when it ends, and a later run can tell them from those of runs still
 * going (on the same database, from another checkout). Unset outside vitest (the benches, the
 * conformance server): schemas are then `gw_test_<16 hex>`, created and dropped one by one.
 */
export const SCHEMA_RUN_ENV = 'GATEWAY_TEST_SCHEMA_RUN';

/**
 * The advisory lock class (`'gw_t'`) under which a run holds its key for as long as it lives:
 * a run whose key no session holds has ended, and its schemas can go.
 */
const RUN_LOCK_CLASS = 0x67775f74;

/** This process's run key, when it is a worker of a run that owns its schemas. */
export function currentSchemaRun(): string | undefined {
  const run = process.env[SCHEMA_RUN_ENV];
  return run !== undefined && /^[0-9a-f]{8}$/.test(run) ? run : undefined;
}

/** A new schema name: the run's prefix when there is a run, else `gw_test_` and 16 hex digits. */
export function newSchemaName(run = currentSchemaRun()): string {
  return run === undefined
    ? `gw_test_${randomBytes(8).toString('hex')}`
    : `gw_test_${run}_${randomBytes(6).toString('hex')}`;
}

/** A run: its key, and the session holding the key's lock until `end()`. */
export interface SchemaRun {
  run: string;
  /** Drops the run's schemas and lets go of its key. */
  end(): Promise<void>;
}

/**
 * Starts a run on `url`: takes a fresh key's advisory lock on a session kept open for the run,
 * and drops the schemas of runs that ended without dropping theirs (a crash, a kill): those
 * whose key's lock nobody holds.
 *
 * @example
 * const { run, end } = await startSchemaRun(process.env.TEST_DATABASE_URL);
 */
export async function startSchemaRun(url: string): Promise<SchemaRun> {
  const session = new pg.Client({ connectionString: url });
  await session.connect();
  // A run ending by a signal drops its session, and with it the key's lock, unasked.
  session.on('error', () => undefined);
  let run = randomBytes(4).toString('hex');
  while (!(await tryLock(session, run))) run = randomBytes(4).toString('hex');
  await dropEndedRuns(session);
  return {
    run,
    async end() {
      try {
        await dropSchemas(session, await schemasOf(session, run));
      } finally {
        await session.end();
      }
    },
  };
}

async function dropEndedRuns(session: pg.Client): Promise<void> {
  const runs = new Set((await schemasOf(session)).map((schema) => schema.slice(8, 16)));
  for (const run of runs) {
    if (!(await tryLock(session, run))) continue;
    try {
      await dropSchemas(session, await schemasOf(session, run));
    } finally {
      await session.query('select pg_advisory_unlock($1, $2)', [RUN_LOCK_CLASS, lockKey(run)]);
    }
  }
}

async function tryLock(session: pg.Client, run: string): Promise<boolean> {
  const { rows } = await session.query<{ locked: boolean }>(
    'select pg_try_advisory_lock($1, $2) as locked',
    [RUN_LOCK_CLASS, lockKey(run)],
  );
  return rows[0]?.locked === true;
}

/** The run's key as the signed 32-bit number the two-key advisory lock functions take. */
function lockKey(run: string): number {
  return Number.parseInt(run, 16) | 0;
}

/** The schemas of `run`, or of every run. */
async function schemasOf(session: pg.Client, run?: string): Promise<string[]> {
  const { rows } = await session.query<{ name: string }>(
    `select nspname as name from pg_namespace where nspname ~ $1`,
    [`^gw_test_${run ?? '[0-9a-f]{8}'}_[0-9a-f]{12}$`],
  );
  return rows.map((row) => row.name);
}

async function dropSchemas(session: pg.Client, schemas: readonly string[]): Promise<void> {
  for (const schema of schemas) await session.query(`drop schema if exists "${schema}" cascade`);
}
