import {
  type DatabaseIntrospector,
  type DatabaseMetadataOptions,
  type Kysely,
  PostgresIntrospector,
  type SchemaMetadata,
  sql,
  type TableMetadata,
} from 'kysely';
import { DEFAULT_MIGRATION_LOCK_TABLE, DEFAULT_MIGRATION_TABLE } from 'kysely/migration';

/** One column of a table, as the catalog query below reads it. */
interface ColumnRow {
  table: string;
  table_type: string;
  schema: string;
  column: string;
  not_null: boolean;
  has_default: boolean;
  type: string;
  type_schema: string;
  column_description: string | null;
  auto_incrementing: string | null;
}

/**
 * kysely's PostgreSQL introspector, but its tables are those of the current schema only (the
 * first of `search_path`, where the gateway keeps its tables), in the shape kysely's own returns.
 *
 * Both readers of table metadata, kysely's migrator and better-auth's `getMigrations`, only want
 * the gateway's own schema, yet kysely's introspector reads the columns of every schema and calls
 * `pg_get_serial_sequence` on each. PostgreSQL fails that read when another connection drops or
 * changes a table of another schema meanwhile (another application sharing the database, a
 * parallel test): "schema does not exist" or "column does not exist" about something that is not
 * ours. Reading our schema alone cannot meet that, and reads less.
 *
 * @example
 * class GatewayPostgresDialect extends PostgresDialect {
 *   createIntrospector(db: Kysely<any>) { return new CurrentSchemaIntrospector(db); }
 * }
 */
export class CurrentSchemaIntrospector implements DatabaseIntrospector {
  readonly #db: Kysely<unknown>;
  readonly #schemas: PostgresIntrospector;

  constructor(db: Kysely<unknown>) {
    this.#db = db;
    this.#schemas = new PostgresIntrospector(db);
  }

  getSchemas(): Promise<SchemaMetadata[]> {
    return this.#schemas.getSchemas();
  }

  async getTables(
    options: DatabaseMetadataOptions = { withInternalKyselyTables: false },
  ): Promise<TableMetadata[]> {
    const internal = options.withInternalKyselyTables
      ? sql``
      : sql`and c.relname not in (${DEFAULT_MIGRATION_TABLE}, ${DEFAULT_MIGRATION_LOCK_TABLE})`;
    const { rows } = await sql<ColumnRow>`
      select a.attname as "column", a.attnotnull as not_null, a.atthasdef as has_default,
        c.relname as "table", c.relkind as table_type, ns.nspname as "schema",
        typ.typname as "type", dtns.nspname as type_schema,
        col_description(a.attrelid, a.attnum) as column_description,
        pg_get_serial_sequence(quote_ident(ns.nspname) || '.' || quote_ident(c.relname), a.attname)
          as auto_incrementing
      from pg_catalog.pg_attribute a
        join pg_catalog.pg_class c on a.attrelid = c.oid
        join pg_catalog.pg_namespace ns on c.relnamespace = ns.oid
        join pg_catalog.pg_type typ on a.atttypid = typ.oid
        join pg_catalog.pg_namespace dtns on typ.typnamespace = dtns.oid
      where ns.nspname = current_schema()
        and c.relkind in ('r', 'v', 'p', 'f')
        and a.attnum >= 0 and not a.attisdropped
        ${internal}
      order by c.relname, a.attnum`.execute(this.#db);
    return tablesOf(rows);
  }
}

/** Groups column rows (ordered by table) into kysely's table metadata. */
function tablesOf(rows: readonly ColumnRow[]): TableMetadata[] {
  const tables = new Map<string, TableMetadata & { columns: TableMetadata['columns'][number][] }>();
  for (const row of rows) {
    let table = tables.get(row.table);
    if (table === undefined) {
      table = {
        name: row.table,
        schema: row.schema,
        isView: row.table_type === 'v',
        isForeign: row.table_type === 'f',
        columns: [],
      };
      tables.set(row.table, table);
    }
    table.columns.push({
      name: row.column,
      dataType: row.type,
      dataTypeSchema: row.type_schema,
      isNullable: !row.not_null,
      isAutoIncrementing: row.auto_incrementing !== null,
      hasDefaultValue: row.has_default,
      comment: row.column_description ?? undefined,
    });
  }
  return [...tables.values()];
}
