import { sql } from 'kysely';
import type { GatewayDatabase } from './database.js';

/** What a start needs to know of the schema, read in one query. */
export interface SchemaState {
  /** The names of the gateway's migrations the database has applied. */
  migrations: ReadonlySet<string>;
  /** `schema_state` rows by name (`better-auth`: the fingerprint of its schema last migrated to). */
  values: ReadonlyMap<string, string>;
}

/**
 * Reads the applied migrations and the stored schema fingerprints in one query, so a start on a
 * database that is already up to date costs one read. Undefined when the tables are not there
 * yet (a new database, or one from before `008-schema-state`): the caller then migrates in full.
 *
 * @example
 * const state = await readSchemaState(database);
 * await migrate(database, migrations, state);
 */
export async function readSchemaState(database: GatewayDatabase): Promise<SchemaState | undefined> {
  try {
    const { rows } = await sql<{ kind: string; name: string; value: string }>`
      select 'migration' as kind, name, '' as value from kysely_migration
      where ${inCurrentSchema(database, 'kysely_migration')}
      union all
      select 'state' as kind, name, value from schema_state
      where ${inCurrentSchema(database, 'schema_state')}`.execute(database.db);
    const migrations = new Set<string>();
    const values = new Map<string, string>();
    for (const row of rows) {
      if (row.kind === 'migration') migrations.add(row.name);
      else values.set(row.name, row.value);
    }
    return { migrations, values };
  } catch {
    // A table missing: the full migration path creates it and finds what is applied itself.
    return undefined;
  }
}

/**
 * On PostgreSQL, true only when `table` as resolved through `search_path` is the current
 * schema's: another schema's copy (a later `search_path` entry) must not pass for this one's,
 * or a schema never migrated would be taken for up to date.
 */
function inCurrentSchema(database: GatewayDatabase, table: string) {
  if (database.dialect !== 'postgres') return sql`1 = 1`;
  return sql`${sql.lit(table)}::regclass = to_regclass(quote_ident(current_schema()) || ${sql.lit(`.${table}`)})`;
}
