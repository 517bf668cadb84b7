import { sql } from 'kysely';
import { type Migration, Migrator } from 'kysely/migration';
import type { GatewayDatabase } from './database.js';
import { type GatewayMigration, loadMigrations } from './migrations/index.js';

/**
 * Applies, through kysely's migrator, every step of `migrations` (the gateway's, by default) the
 * database has not recorded, in one transaction, and returns their names. Loaded by migrate.ts
 * only when there is something to apply (issue 37: a migrated database's start never loads it).
 *
 * @throws when a step fails (the whole run is rolled back), naming it.
 */
export async function runMigrations(
  database: GatewayDatabase,
  given?: Readonly<Record<string, GatewayMigration>>,
): Promise<string[]> {
  const migrations = given ?? (await loadMigrations());
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
