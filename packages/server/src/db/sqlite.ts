import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import {
  type DialectAdapter,
  SqliteAdapter,
  type SqliteDatabase,
  SqliteDialect,
  type SqliteStatement,
} from 'kysely';

/** The path that opens a private, throw-away SQLite database (tests). */
export const SQLITE_MEMORY = ':memory:';

/**
 * Opens a SQLite file (creating it, mode 0600, and its directory) and returns a kysely dialect
 * over it.
 *
 * Pragmas, and why:
 * - `journal_mode = WAL`: readers never block the single writer, so the web app stays responsive
 *   while a tool call records its execution. Not for `:memory:`, which has no journal file.
 * - `synchronous = FULL`: a commit (a stored secret, an approval decision) survives power loss;
 *   WAL's usual `NORMAL` may drop the last commits.
 * - `foreign_keys = ON`: SQLite leaves them off per connection; cascades depend on them.
 * - `busy_timeout = 5000`: another process holding the write lock (a second `gateway` command on
 *   the same data dir) makes us wait instead of failing at once with SQLITE_BUSY.
 *
 * @throws when the file cannot be created or opened.
 */
export function openSqliteDialect(path: string): SqliteDialect {
  if (path !== SQLITE_MEMORY) createPrivateFile(path);
  const database = new Database(path);
  try {
    if (path !== SQLITE_MEMORY) database.pragma('journal_mode = WAL');
    database.pragma('synchronous = FULL');
    database.pragma('foreign_keys = ON');
    database.pragma('busy_timeout = 5000');
  } catch (error) {
    database.close();
    throw error;
  }
  return new TransactionalDdlSqliteDialect({ database: withPortableParameters(database) });
}

/**
 * Creates the database file, if it does not exist yet, readable and writable by its owner only
 * (0600): it holds encrypted credentials, token hashes and session rows. SQLite gives the `-wal`
 * and `-shm` files it makes beside it the same mode. An existing file keeps the mode its owner
 * chose.
 */
function createPrivateFile(path: string): void {
  mkdirSync(dirname(path), { recursive: true });
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (error) {
    if (!(error instanceof Error && 'code' in error && error.code === 'EEXIST')) throw error;
  }
}

/** How many prepared statements a connection keeps; the hot queries are a few dozen. */
const STATEMENT_CACHE_SIZE = 200;
/**
 * Longer SQL is not kept: it is a multi-row insert (a batch of execution records), whose text
 * varies with the batch size and which holds about 1.3 KB of memory per row, so two hundred of
 * them would hold megabytes; preparing one is a small part of running it.
 */
const STATEMENT_CACHE_MAX_SQL = 1000;

/**
 * better-sqlite3 refuses to bind booleans and `Date`s, which `pg` accepts. better-auth's columns
 * hold both, so a query written once for both databases would fail on SQLite only. Binding them
 * the way better-auth's SQLite adapter stores them (0/1, ISO 8601 text) keeps one query valid on
 * both and keeps the stored values in better-auth's format.
 *
 * Statements are also kept prepared, by SQL text, least recently used first out: kysely asks for
 * a new one for every query, and preparing costs SQLite more than running the small queries of
 * an MCP call (each call looks up its token and its role). Reusing one is safe because kysely
 * runs one query at a time on the connection; a streamed query (`iterate`) gets a statement of
 * its own all the same, since it stays busy until the caller stops reading.
 */
function withPortableParameters(database: Database.Database): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  const prepare = (sql: string): SqliteStatement => {
    const statement = database.prepare(sql);
    return {
      reader: statement.reader,
      all: (parameters) => statement.all(portable(parameters)),
      run: (parameters) => statement.run(portable(parameters)),
      iterate: (parameters) => database.prepare(sql).iterate(portable(parameters)),
    };
  };
  return {
    close: () => {
      statements.clear();
      database.close();
    },
    prepare(sql) {
      if (sql.length > STATEMENT_CACHE_MAX_SQL) return prepare(sql);
      let statement = statements.get(sql);
      if (statement === undefined) {
        statement = prepare(sql);
        if (statements.size >= STATEMENT_CACHE_SIZE) {
          const oldest = statements.keys().next();
          if (oldest.done !== true) statements.delete(oldest.value);
        }
      } else {
        // Re-inserted, so the map's order stays least recently used first.
        statements.delete(sql);
      }
      statements.set(sql, statement);
      return statement;
    },
  };
}

function portable(parameters: ReadonlyArray<unknown>): unknown[] {
  return parameters.map((value) => {
    if (typeof value === 'boolean') return value ? 1 : 0;
    if (value instanceof Date) return value.toISOString();
    return value;
  });
}

/**
 * SQLite runs schema changes inside transactions, but kysely's adapter says it does not, so its
 * migrator would apply a SQLite migration statement by statement and a failure half-way would
 * leave a half-made schema that the next start cannot migrate. Saying so lets the migrator wrap
 * the pending migrations in one transaction, as it does on PostgreSQL. (A future migration that
 * rebuilds a table uses `pragma defer_foreign_keys`, which works inside a transaction, instead
 * of `pragma foreign_keys = off`, which does not.)
 */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

class TransactionalDdlSqliteDialect extends SqliteDialect {
  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}
