import { CompiledQuery, type Insertable } from 'kysely';
import type { DatabaseDialect, GatewayDatabase } from '../db/index.js';
import { type PoolStatement, poolQueryOf, poolStatement } from '../db/pool-query.js';
import type { RunNow } from '../db/sqlite.js';
import type { ExecutionsTable } from './tables.js';

/** An execution record as stored, by column. */
export type Row = Insertable<ExecutionsTable>;

/**
 * An execution record as stored: its values in {@link COLUMNS}' order. Made once per record, it
 * is both the journal's line (journal.ts) and the upsert's parameters: no object with a key per
 * column to build, serialize with its keys, and read back column by column (issue 37).
 */
export type RowValues = readonly [
  id: string,
  user_id: string,
  tool_path: string,
  started_at: string,
  duration_ms: number | null,
  outcome: string | null,
  approval: string | null,
  approved_by: string | null,
  arguments: string,
  error: string | null,
  endpoint_id: string | null,
  client_id: string | null,
];

/** The columns of an execution record, in the order of {@link RowValues}. */
export const COLUMNS = [
  'id',
  'user_id',
  'tool_path',
  'started_at',
  'duration_ms',
  'outcome',
  'approval',
  'approved_by',
  'arguments',
  'error',
  'endpoint_id',
  'client_id',
] as const satisfies readonly (keyof Row)[];

/** A row given by column (an older gateway's journal line) as {@link RowValues}. */
export function rowValues(row: Row): RowValues {
  return [
    row.id,
    row.user_id,
    row.tool_path,
    row.started_at,
    row.duration_ms ?? null,
    row.outcome ?? null,
    row.approval ?? null,
    row.approved_by ?? null,
    row.arguments,
    row.error ?? null,
    row.endpoint_id ?? null,
    row.client_id ?? null,
  ];
}
// `arguments` too: a call's last write masks the values it was vended (mcp/call-redaction.ts),
// which its first write, stored before the tool ran, could not know.
const UPDATED = COLUMNS.filter(
  (column) =>
    column !== 'id' &&
    column !== 'user_id' &&
    column !== 'tool_path' &&
    column !== 'started_at' &&
    column !== 'endpoint_id' &&
    column !== 'client_id',
);

/**
 * Stores rows of execution records, in one transaction: each row an upsert in which a record
 * never loses the outcome it has, so a late "still running" write from one instance cannot undo
 * the result another stored.
 *
 * On SQLite the rows are written synchronously on the gateway's connection when nothing holds
 * it (`runNow`), with prepared statements: a lone record costs a few tens of microseconds, where a
 * trip through kysely's driver (a statement per await) cost several times that. A commit of these
 * rows is not synced (`synchronous = NORMAL` for it alone): in WAL mode it survives a crash of the
 * process, not a power cut; every other commit stays synced (db/sqlite.ts).
 */
export function rowStore(database: GatewayDatabase): (rows: RowValues[]) => Promise<void> {
  const { runNow } = database;
  if (runNow === undefined) {
    // On PostgreSQL each statement goes to the pool itself, not through kysely (db/pool-query.ts).
    const run = poolQueryOf(database.db);
    return async (rows) => {
      for (let at = 0; at < rows.length; at += POSTGRES_CHUNK) {
        const chunk = rows.slice(at, at + POSTGRES_CHUNK);
        if (run === undefined) await database.db.executeQuery(upsertQuery(chunk));
        else await run(upsertStatement(chunk.length), parameters(chunk, 0, chunk.length));
      }
    };
  }
  const write = sqliteWriter();
  return async (rows) => {
    if (runNow((connection) => write(connection, rows))) return;
    // A transaction is open on the connection (it spans awaits): wait for kysely to hand the
    // connection over, which it does only between transactions.
    await database.db.connection().execute(async () => {
      if (!runNow((connection) => write(connection, rows))) {
        throw new Error('the database connection stayed busy');
      }
    });
  };
}

/**
 * Rows per statement on SQLite, largest first: each size's statement is prepared once, where a
 * statement per batch size was prepared anew for most batches.
 */
const SQLITE_CHUNK_SIZES = [32, 8, 2, 1];

type Connection = Parameters<Parameters<RunNow>[0]>[0];

function sqliteWriter(): (connection: Connection, rows: RowValues[]) => void {
  let prepared: ReturnType<typeof prepare> | undefined;
  const prepare = (connection: Connection) => {
    const upserts = new Map(
      SQLITE_CHUNK_SIZES.map((size) => [size, connection.prepare(upsertSql('sqlite', size))]),
    );
    const store = connection.transaction((rows: RowValues[]) => {
      let at = 0;
      for (const size of SQLITE_CHUNK_SIZES) {
        const statement = upserts.get(size);
        while (statement !== undefined && rows.length - at >= size) {
          statement.run(parameters(rows, at, size));
          at += size;
        }
      }
    });
    const tempStore = Number(connection.pragma('temp_store', { simple: true }));
    return {
      connection,
      normal: connection.prepare('pragma synchronous = NORMAL'),
      full: connection.prepare('pragma synchronous = FULL'),
      inMemory: connection.prepare('pragma temp_store = MEMORY'),
      restore: connection.prepare(`pragma temp_store = ${tempStore}`),
      store,
    };
  };
  return (connection, rows) => {
    if (prepared?.connection !== connection) prepared = prepare(connection);
    prepared.normal.run();
    // Each upsert runs under a statement savepoint, whose journal takes every page it changes;
    // past 64 KiB SQLite spills it to a temporary file, opened, written a page at a time and
    // closed on every batch (~2 `pwrite(2)`s a call, README.md `sys40`). In memory it costs no
    // system call and holds one statement's pages (32 rows at most), emptied as each ends.
    prepared.inMemory.run();
    try {
      prepared.store(rows);
    } finally {
      prepared.restore.run();
      prepared.full.run();
    }
  };
}

const upsertText = new Map<string, string>();

function upsertSql(dialect: DatabaseDialect, count: number): string {
  const key = `${dialect}:${count}`;
  let text = upsertText.get(key);
  if (text === undefined) {
    let next = 0;
    const placeholder = dialect === 'postgres' ? () => `$${++next}` : () => '?';
    const tuples = Array.from({ length: count }, () => `(${COLUMNS.map(placeholder).join(', ')})`);
    text =
      `insert into "executions" (${COLUMNS.map((column) => `"${column}"`).join(', ')}) values ` +
      `${tuples.join(', ')} on conflict ("id") do update set ` +
      `${UPDATED.map((column) => `"${column}" = "excluded"."${column}"`).join(', ')} ` +
      'where "executions"."outcome" is null';
    upsertText.set(key, text);
  }
  return text;
}

/** Rows per statement on PostgreSQL, well under its 65,535 parameters. */
const POSTGRES_CHUNK = 500;

/** One multi-row upsert of `rows` (PostgreSQL). */
function upsertQuery(rows: RowValues[]): CompiledQuery {
  return CompiledQuery.raw(upsertSql('postgres', rows.length), parameters(rows, 0, rows.length));
}

const upsertStatements = new Map<number, PoolStatement>();

/** The upsert of `count` rows as the pool runs it (PostgreSQL), its span worked out once. */
function upsertStatement(count: number): PoolStatement {
  let statement = upsertStatements.get(count);
  if (statement === undefined) {
    statement = poolStatement(CompiledQuery.raw(upsertSql('postgres', count)));
    upsertStatements.set(count, statement);
  }
  return statement;
}

function parameters(rows: RowValues[], from: number, count: number): unknown[] {
  if (count === 1) return (rows[from] as RowValues).slice();
  const values: unknown[] = [];
  for (let index = from; index < from + count; index++) {
    for (const value of rows[index] as RowValues) values.push(value);
  }
  return values;
}
