import { sql } from 'kysely';
import { type Migration, Migrator } from 'kysely/migration';
import type { GatewayDatabase } from './database.js';
import { migrations as allMigrations, type GatewayMigration } from './migrations/index.js';
import { readSchemaState, type SchemaState } from './schema-state.js';

/**
 * Brings the schema up to date: applies, in name order, every migration the database has not
 * recorded yet, and returns their names (empty when the schema was current, so running it again
 * is a no-op). The pending migrations run in one transaction on both engines, so a failure
 * leaves the schema as it was. Safe to run from several instances at once: kysely's migrator
 * holds a lock row on PostgreSQL, and SQLite has a single writer.
 *
 * When the database has applied exactly these migrations (every start after an upgrade's
 * first), that one read of `state` (read here when not given) is all it costs: kysely's
 * migrator, which introspects the tables and takes its lock, runs only when something is to do
 * or the database records a step this build does not know (its error says so).
 *
 * @example
 * const database = await openDatabase(process.env.DATABASE_URL, dataDir);
 * const applied = await migrate(database);
 *
 * @throws when a migration fails (the whole run is rolled back), or when the
 * database records a migration this build does not know (it was migrated by a newer version).
 */
export async function migrate(
  database: GatewayDatabase,
  migrations: Readonly<Record<string, GatewayMigration>> = allMigrations,
  state?: SchemaState,
): Promise<string[]> {
  const known = state ?? (await readSchemaState(database));
  if (known !== undefined && sameNames(known.migrations, Object.keys(migrations))) return [];
  const migrator = new Migrator({
    db: database.db,
    // Named, or kysely looks for its migration tables in every schema: another schema's (a
    // second app, a parallel test) would pass for ours and leave this one never created.
    ...(database.dialect === 'postgres'
      ? { migrationTableSchema: await currentSchema(database) }
      : {}),
    provider: {
      getMigrations: async () =>
        Object.fromEntries(
          Object.entries(migrations).map(([name, migration]): [string, Migration] => [
            name,
            { up: (db) => migration.up(db, database.dialect) },
          ]),
        ),
    },
  });
  // On PostgreSQL the migrator reads the current schema's tables only (see
  // CurrentSchemaIntrospector), so other schemas changing meanwhile cannot fail it.
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results.find((result) => result.status === 'Error')?.migrationName;
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      failed
        ? `Database migration "${failed}" failed: ${reason}`
        : `Database migration failed: ${reason}`,
      { cause: error },
    );
  }
  return results
    .filter((result) => result.status === 'Success')
    .map((result) => result.migrationName);
}

function sameNames(applied: ReadonlySet<string>, names: readonly string[]): boolean {
  return applied.size === names.length && names.every((name) => applied.has(name));
}

/** The schema unqualified names resolve to (the first of `search_path` that exists). */
async function currentSchema(database: GatewayDatabase): Promise<string> {
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(
    database.db,
  );
  const schema = rows[0]?.schema;
  if (!schema) {
    throw new Error(
      'PostgreSQL has no current schema: create the schema named first in search_path, or set one that exists',
    );
  }
  return schema;
}
