import type { GatewayDatabase } from './database.js';
import { MIGRATIONS } from './migrations/index.js';
import type { GatewayMigration } from './migrations/migration.js';
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
 * @throws when a migration fails (the whole run is rolled back), or when the database records a
 * migration this build does not know: "this database is newer than this build", naming both
 * versions, when it was migrated by a newer build.
 */
export async function migrate(
  database: GatewayDatabase,
  migrations?: Readonly<Record<string, GatewayMigration>>,
  state?: SchemaState,
): Promise<string[]> {
  const names = Object.keys(migrations ?? MIGRATIONS);
  const known = state ?? (await readSchemaState(database));
  if (known !== undefined) refuseUnknownSteps(known.migrations, names);
  if (known !== undefined && sameNames(known.migrations, names)) return [];
  // Only now: the steps and kysely's migrator are code a migrated database's start never runs.
  const { runMigrations } = await import('./run-migrations.js');
  return runMigrations(database, migrations);
}

/**
 * Refuses a database that records steps this build does not have: one migrated by a newer build
 * (an upgrade rolled back, an older instance started beside newer ones). Running on it would
 * read and write tables whose shape this build does not know, so it says so with both versions,
 * rather than kysely's "corrupted migrations".
 */
function refuseUnknownSteps(applied: ReadonlySet<string>, names: readonly string[]): void {
  const known = new Set(names);
  const unknown = [...applied].filter((name) => !known.has(name)).sort();
  if (unknown.length === 0) return;
  const ours = [...names].sort().at(-1) ?? '';
  const theirs = unknown.at(-1) ?? '';
  if (versionOf(theirs) > versionOf(ours)) {
    throw new Error(
      `this database is newer than this build: its schema is at version ${versionOf(theirs)} ("${theirs}"), this build knows up to version ${versionOf(ours)} ("${ours}"). Run a build at least as new as the one that migrated it (or restore a backup taken before that upgrade).`,
    );
  }
  throw new Error(
    `this database records migrations this build does not know (${unknown.map((name) => `"${name}"`).join(', ')}; this build knows up to version ${versionOf(ours)}, "${ours}"): it was migrated by another build. Run that build, or restore a backup taken before it ran.`,
  );
}

/** The number a step's name starts with (`010-refresh-leases`: 10); 0 when it has none. */
function versionOf(name: string): number {
  return Number(/^(\d+)/.exec(name)?.[1] ?? 0);
}

function sameNames(applied: ReadonlySet<string>, names: readonly string[]): boolean {
  return applied.size === names.length && names.every((name) => applied.has(name));
}
