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
import { UNMARKED_WRITE } from './unmarked-write.js';
import { WalIndexHeader } from './wal-index-header.js';

/** The path that opens a private, throw-away SQLite database (tests). */
export const SQLITE_MEMORY = ':memory:';

/** An open SQLite database: the kysely dialect over it, and its {@link SqliteChangeMark}. */
export interface OpenedSqlite {
  dialect: SqliteDialect;
  changeMark: () => string;
  refreshChangeMark: (fromNetwork: boolean) => void;
  runNow: RunNow;
}

/**
 * Runs `work` on the connection at once, synchronously, when nothing else holds it: no
 * transaction is open on it (kysely's transactions span awaits) and no statement is being
 * iterated. Answers false, having done nothing, when something does. Statements run this way
 * bypass kysely and the change mark: only writes no cached lookup reads belong here.
 */
export type RunNow = (work: (connection: Database.Database) => void) => boolean;

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
 * `image`, for `:memory:` only, is a database serialized by better-sqlite3's `serialize()` that
 * the new one starts as a copy of (the tests' gateways start from a migrated one).
 *
 * @throws when the file cannot be created or opened, or `image` is given for a file.
 */
export function openSqlite(path: string, image?: Buffer): OpenedSqlite {
  if (image !== undefined && path !== SQLITE_MEMORY) {
    throw new Error('only an in-memory SQLite database starts from a serialized image');
  }
  if (path !== SQLITE_MEMORY) createPrivateFile(path);
  const database = new Database(image ?? path);
  try {
    if (path !== SQLITE_MEMORY) database.pragma('journal_mode = WAL');
    database.pragma('synchronous = FULL');
    database.pragma('foreign_keys = ON');
    database.pragma('busy_timeout = 5000');
  } catch (error) {
    database.close();
    throw error;
  }
  const mark = new SqliteChangeMark(database, path === SQLITE_MEMORY ? undefined : `${path}-shm`);
  const runNow: RunNow = (work) => {
    if (database.inTransaction) return false;
    try {
      work(database);
      return true;
    } catch (error) {
      // A statement being iterated holds the connection: better-sqlite3 refuses any other
      // statement before it runs, so nothing was done.
      if (error instanceof TypeError && /busy/i.test(error.message)) return false;
      throw error;
    }
  };
  return {
    dialect: new TransactionalDdlSqliteDialect({
      database: withPortableParameters(database, mark),
    }),
    changeMark: () => mark.read(),
    refreshChangeMark: (fromNetwork) => mark.refresh(fromNetwork),
    runNow,
  };
}

/** How long requests from the network may share one refresh of the change mark, at most. */
const SHARED_REFRESH_MS = 5;

/**
 * Tells whether the database may have changed: a value that stays the same while no connection
 * committed a change, and differs after any. Another connection's commits (another gateway
 * process on the same file) show in SQLite's `PRAGMA data_version`, which ignores the
 * connection's own; this connection's writes are counted as its statements run, except those
 * their author marked with `unmarkedWrite()` (`db/unmarked-write.ts`): execution records and
 * token use times, or a busy gateway would forget its cached tokens and roles after every batch
 * of records. Records written through {@link RunNow} bypass the mark altogether. A write in a
 * transaction that rolls back counts all the same: a mark may change when nothing did, never
 * stay when something did.
 *
 * `data_version` is not read on every call: in WAL mode reading it starts a read transaction
 * (file locks, ~5-15 µs), as much as a lookup it saves. A read is kept until {@link refresh}, and
 * never past the turn of the event loop it was made in (for work outside requests). Each HTTP
 * request starts with a refresh, so what it looks up reflects every commit made before it began;
 * requests from the network share one refresh per turn (see {@link refresh}). A refresh first
 * reads the WAL index header (one `pread(2)`, {@link WalIndexHeader}): while it is the one read
 * before the last `data_version`, no connection has committed since, and that value still holds.
 */
class SqliteChangeMark {
  readonly #dataVersion: Database.Statement<[], number>;
  /** Where the WAL index header is read from; undefined in memory, or until the file exists. */
  readonly #shmPath: string | undefined;
  #header: WalIndexHeader | undefined;
  /** The `data_version` last read from SQLite, which holds while the header is unchanged. */
  #lastVersion: number | undefined;
  #version: number | undefined;
  #writes = 0;
  /** When requests from the network last refreshed in this turn (`performance.now()`). */
  #sharedSince: number | undefined;
  #turnEnding = false;
  readonly #endTurn = () => {
    this.#turnEnding = false;
    this.#version = undefined;
    this.#sharedSince = undefined;
  };

  constructor(database: Database.Database, shmPath: string | undefined) {
    this.#dataVersion = database.prepare<[], number>('pragma data_version').pluck();
    this.#shmPath = shmPath;
  }

  /** Counts a statement about to run, when it may write. */
  noteRun(sql: string, readonly: boolean): void {
    if (!readonly && !sql.endsWith(UNMARKED_WRITE)) this.#writes += 1;
  }

  /**
   * Makes the next {@link read} ask SQLite for `data_version` again, as a request begins.
   *
   * A request from the network (`fromNetwork`) shares the refresh of the first one in its turn of
   * the event loop: node took this turn's requests from the network together, before the first
   * of them was handled, so a commit one of them can know of (its client saw it end before
   * sending the request) ended before that refresh's read. When node takes more than one batch of
   * requests in a turn (over 1,024 sockets ready at once), a later batch may follow commits made
   * after the read; a shared refresh lasts at most {@link SHARED_REFRESH_MS}, which bounds the
   * staleness then. A request handed over in-process (`gateway.fetch()`) can follow a commit made
   * earlier in the same turn, so it always refreshes.
   */
  refresh(fromNetwork: boolean): void {
    if (fromNetwork) {
      const now = performance.now();
      if (this.#sharedSince !== undefined && now - this.#sharedSince <= SHARED_REFRESH_MS) return;
      this.#sharedSince = now;
      this.#endTurnLater();
    }
    this.#version = undefined;
  }

  read(): string {
    if (this.#version === undefined) {
      this.#version = this.#currentVersion();
      this.#endTurnLater();
    }
    return `${this.#version}.${this.#writes}`;
  }

  close(): void {
    this.#header?.close();
    this.#header = undefined;
  }

  #currentVersion(): number {
    if (this.#header === undefined && this.#shmPath !== undefined) {
      // SQLite makes the file with the connection's first read in WAL mode.
      this.#header = WalIndexHeader.open(this.#shmPath);
    }
    const header = this.#header;
    if (header?.unchanged() === true && this.#lastVersion !== undefined) return this.#lastVersion;
    // The header was read before this: a commit between the two shows at the next look.
    const version = this.#dataVersion.get() ?? 0;
    header?.remember();
    this.#lastVersion = version;
    return version;
  }

  #endTurnLater(): void {
    if (this.#turnEnding) return;
    this.#turnEnding = true;
    setImmediate(this.#endTurn);
  }
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
 * Longer SQL is not kept: one-off statements whose text varies with a list's length, which can
 * hold tens of kilobytes each. The longest kept on purpose is the 32-row upsert of execution
 * records (~1.4 KB of SQL, ~40 KB prepared; executions/recorder.ts).
 */
const STATEMENT_CACHE_MAX_SQL = 1500;

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
 *
 * Every statement that may write is counted for the {@link SqliteChangeMark} as it runs.
 */
function withPortableParameters(
  database: Database.Database,
  mark: SqliteChangeMark,
): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  const prepare = (sql: string): SqliteStatement => {
    const statement = database.prepare(sql);
    const { readonly } = statement;
    return {
      reader: statement.reader,
      all: (parameters) => {
        mark.noteRun(sql, readonly);
        return statement.all(portable(parameters));
      },
      run: (parameters) => {
        mark.noteRun(sql, readonly);
        return statement.run(portable(parameters));
      },
      iterate: (parameters) => {
        mark.noteRun(sql, readonly);
        return database.prepare(sql).iterate(portable(parameters));
      },
    };
  };
  return {
    close: () => {
      statements.clear();
      database.close();
      mark.close();
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
