import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DatabaseDialect, type GatewayDatabase, openDatabase } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { SQLITE_MEMORY } from '../../src/db/sqlite.js';
import { createSchema, notePristine, releaseSchema, takeMigratedSchema } from './schema-pool.js';
import { currentSchemaRun, newSchemaName } from './schema-run.js';
import { withClient } from './with-client.js';

/** Options for the test database helpers. */
export interface TestDatabaseOptions {
  /** Apply every migration before returning. Default true. */
  migrate?: boolean;
}

/**
 * A private in-memory SQLite database, migrated unless told otherwise. Nothing touches the disk,
 * so tests need no cleanup beyond `close()` (and may skip that).
 *
 * @example
 * const { db } = await createTestDatabase();
 */
export async function createTestDatabase(
  options: TestDatabaseOptions = {},
): Promise<GatewayDatabase> {
  const database = await openDatabase(SQLITE_MEMORY, tmpdir());
  if (options.migrate !== false) await migrate(database);
  return database;
}

/** A PostgreSQL database confined to a schema of its own, and the way to throw it away. */
export interface PostgresTestDatabase {
  database: GatewayDatabase;
  /** The schema's name: `gw_test_` and random hex (see `schema-run.ts`). */
  schema: string;
  /** `url` with the schema as its search path, for a gateway that opens its own pool. */
  url: string;
  /**
   * Closes the pool and gives the schema up: reset for the next test of this worker when it is
   * a migrated one reused across tests (see {@link createPostgresTestDatabase}), dropped
   * otherwise. Either way nothing of it is seen again under this name. Safe to call more than
   * once.
   */
  drop(): Promise<void>;
}

/**
 * Opens `url` (e.g. `TEST_DATABASE_URL`) with a schema of its own as its `search_path`, so
 * tests running side by side, or after a crashed run, never see each other's tables. Call
 * `drop()` when done.
 *
 * Migrated (the default), the schema may be one an earlier test of this worker used, reset to
 * exactly what migrating a new one gives (`schema-pool.ts`; in a vitest run only): its tables
 * empty but for the seeded roles, sequences restarted, under a new name. A gateway started on it
 * finds every migration applied, as on any start after a database's first. With
 * `migrate: false` the schema is always new and empty, for tests of migrating itself.
 *
 * @example
 * const { database, drop } = await createPostgresTestDatabase(url);
 * onTestFinished(drop);
 */
export async function createPostgresTestDatabase(
  url: string,
  options: TestDatabaseOptions = {},
): Promise<PostgresTestDatabase> {
  const pooled = currentSchemaRun() !== undefined;
  const reused = options.migrate !== false && pooled ? takeMigratedSchema(url) : undefined;
  const schema = reused ?? newSchemaName();
  if (reused === undefined) {
    if (pooled) await createSchema(url, schema);
    else await withClient(url, (client) => client.query(`create schema "${schema}"`));
  }

  const scoped = new URL(url);
  const existing = scoped.searchParams.get('options');
  scoped.searchParams.set('options', `${existing ? `${existing} ` : ''}-c search_path=${schema}`);

  let database: GatewayDatabase | undefined;
  let dropping: Promise<void> | undefined;
  const drop = () => {
    dropping ??= (async () => {
      await database?.close();
      if (pooled) await releaseSchema(url, schema);
      else
        await withClient(url, (client) =>
          client.query(`drop schema if exists "${schema}" cascade`),
        );
    })();
    return dropping;
  };

  try {
    database = await openDatabase(scoped.toString(), tmpdir());
    if (reused === undefined && options.migrate !== false) {
      await migrate(database);
      if (pooled) await notePristine(url, schema);
    }
  } catch (error) {
    await drop();
    throw error;
  }
  return { database, schema, url: scoped.toString(), drop };
}

/**
 * `TEST_DATABASE_URL`, or undefined after printing why the PostgreSQL tests are skipped, for
 * `describe.skipIf(!url)`.
 */
export function postgresTestUrl(): string | undefined {
  const url = process.env.TEST_DATABASE_URL?.trim();
  if (!url) console.warn('TEST_DATABASE_URL unset: skipping PostgreSQL storage tests');
  return url || undefined;
}

/** A test database and the way to throw it away. */
export interface OpenedTestDatabase {
  database: GatewayDatabase;
  /** Closes the database and removes its file or schema. Safe to call more than once. */
  cleanup(): Promise<void>;
}

/** One kind of database a storage suite runs against. */
export interface DatabaseTarget {
  name: string;
  dialect: DatabaseDialect;
  /** True when the target cannot run here (PostgreSQL without `TEST_DATABASE_URL`). */
  skip: boolean;
  open(options?: TestDatabaseOptions): Promise<OpenedTestDatabase>;
}

/**
 * The databases a storage suite should pass on: in-memory SQLite, a SQLite file in a fresh temp
 * dir, and PostgreSQL in a fresh schema when `TEST_DATABASE_URL` is set (skipped with a notice
 * otherwise).
 *
 * @example
 * for (const target of databaseTargets()) {
 *   describe.skipIf(target.skip)(target.name, () => {
 *     it('stores', async () => {
 *       const { database, cleanup } = await target.open();
 *       onTestFinished(cleanup);
 *     });
 *   });
 * }
 */
export function databaseTargets(): DatabaseTarget[] {
  const url = postgresTestUrl();
  return [
    {
      name: 'SQLite (in memory)',
      dialect: 'sqlite',
      skip: false,
      async open(options) {
        const database = await createTestDatabase(options);
        return { database, cleanup: () => database.close() };
      },
    },
    {
      name: 'SQLite (file)',
      dialect: 'sqlite',
      skip: false,
      async open(options) {
        const dir = await mkdtemp(join(tmpdir(), 'gateway-db-'));
        let database: GatewayDatabase | undefined;
        const cleanup = async () => {
          await database?.close();
          await rm(dir, { recursive: true, force: true });
        };
        try {
          database = await openDatabase(join(dir, 'gateway.db'), dir);
          if (options?.migrate !== false) await migrate(database);
          return { database, cleanup };
        } catch (error) {
          await cleanup();
          throw error;
        }
      },
    },
    {
      name: 'PostgreSQL',
      dialect: 'postgres',
      skip: !url,
      async open(options) {
        if (!url) throw new Error('TEST_DATABASE_URL is not set.');
        const { database, drop } = await createPostgresTestDatabase(url, options);
        return { database, cleanup: drop };
      },
    },
  ];
}
