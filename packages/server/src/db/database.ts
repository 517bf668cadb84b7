import { join } from 'node:path';
import { Kysely, sql } from 'kysely';
import { setPoolQuery } from './pool-query.js';
import {
  isPostgresUrl,
  openPostgresDialect,
  type PoolStats,
  type PostgresPoolOptions,
} from './postgres.js';
import { withQuerySpans } from './query-spans.js';
import type { DatabaseSchema } from './schema.js';
import { openSqlite, type RunNow, SQLITE_MEMORY } from './sqlite.js';

/** Which database engine a {@link GatewayDatabase} talks to. */
export type DatabaseDialect = 'sqlite' | 'postgres';

/** An open gateway database. */
export interface GatewayDatabase {
  /** The query builder; every query in the server goes through it. */
  db: Kysely<DatabaseSchema>;
  /** The engine, for the few places where SQL differs (row locks, LISTEN/NOTIFY). */
  dialect: DatabaseDialect;
  /**
   * A value that stays the same while nothing in the database changed, for caches of the lookups
   * every MCP call makes (its token, its caller's role): a cache keeps what it read under the mark
   * it read it at, and uses it only while the mark is unchanged. On SQLite it covers every commit,
   * by this process or another on the same file, except execution records and token
   * `last_used_at` times. PostgreSQL cannot tell as cheaply (another instance's commit shows only
   * in a query), so there it is always `undefined`: read every time.
   */
  changeMark(): string | undefined;
  /**
   * Makes the next {@link changeMark} look at the database again rather than reuse what it saw
   * earlier in this turn of the event loop. Called as each HTTP request starts: what the request
   * looks up then reflects every commit made before it began, on any instance. Requests from the
   * network (`fromNetwork`) share one look per turn, which is as fresh for each of them (see
   * `SqliteChangeMark.refresh` in db/sqlite.ts); a request handed over in-process does not.
   */
  refreshChangeMark(fromNetwork: boolean): void;
  /**
   * SQLite only: runs synchronous work on the connection when nothing holds it (see `RunNow` in
   * db/sqlite.ts). The execution recorder commits through it without a trip through kysely.
   */
  runNow?: RunNow;
  /** PostgreSQL only: the pool's connections, for the metrics. */
  poolStats?: () => PoolStats;
  /** SQLite only: the database file (unset for `:memory:`). */
  file?: string;
  /** Closes the file or the pool. Safe to call more than once. */
  close(): Promise<void>;
}

/** The SQLite file used when no `DATABASE_URL` is set. */
export const DEFAULT_SQLITE_FILE = 'gateway.db';

/**
 * Opens the gateway database named by `url` (the `DATABASE_URL` setting):
 * a `postgres://` or `postgresql://` URL opens a PostgreSQL pool; anything else is a SQLite file
 * path, `:memory:` included; unset or empty means `<dataDir>/gateway.db`. The database answers a
 * trivial query before this resolves, so a wrong URL fails at start, not at the first request.
 * Run {@link migrate} next.
 *
 * @example
 * const database = await openDatabase(process.env.DATABASE_URL, '.gateway');
 * await migrate(database);
 *
 * @throws when `url` has another scheme (`mysql://...`) or is neither a URL nor a path (a
 * malformed or quoted `postgres` URL), or the database cannot be opened or reached.
 */
export async function openDatabase(
  url: string | undefined,
  dataDir: string,
  /** PostgreSQL only: the pool's size and connect timeout. */
  pool?: PostgresPoolOptions,
  /** `:memory:` only: a serialized database to start as a copy of (see `openSqlite`). */
  sqliteImage?: Buffer,
): Promise<GatewayDatabase> {
  const target = url?.trim() || join(dataDir, DEFAULT_SQLITE_FILE);
  const dialect: DatabaseDialect = isPostgresUrl(target) ? 'postgres' : 'sqlite';
  if (dialect === 'sqlite' && target !== SQLITE_MEMORY) rejectUrlLike(target);

  const sqlite = dialect === 'sqlite' ? openSqlite(target, sqliteImage) : undefined;
  const postgres = sqlite === undefined ? await openPostgresDialect(target, pool) : undefined;
  const db = new Kysely<DatabaseSchema>({
    dialect: withQuerySpans(
      sqlite?.dialect ?? (postgres as NonNullable<typeof postgres>).dialect,
      dialect,
    ),
  });
  if (postgres !== undefined) setPoolQuery(db, postgres.query);
  const changeMark = sqlite?.changeMark ?? (() => undefined);
  const refreshChangeMark = sqlite?.refreshChangeMark ?? (() => {});
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= db.destroy();
    return closing;
  };

  try {
    await sql`select 1`.execute(db);
  } catch (error) {
    await close();
    throw error;
  }
  return {
    db,
    dialect,
    changeMark,
    refreshChangeMark,
    ...(sqlite === undefined ? {} : { runNow: sqlite.runNow }),
    ...(postgres === undefined ? {} : { poolStats: postgres.poolStats }),
    ...(sqlite === undefined || target === SQLITE_MEMORY ? {} : { file: target }),
    close,
  };
}

/**
 * Refuses a `DATABASE_URL` that is no SQLite file path but would be opened as one, creating a new
 * empty database where the operator meant another (whose first sign-up then becomes admin): a URL
 * of another scheme, a PostgreSQL URL written wrong (`postgres:/host/db`), or one wrapped in
 * quotes that an env file kept. Only the scheme is named: the rest may hold a password.
 */
function rejectUrlLike(target: string): void {
  // Two letters or more: `C:\data\gateway.db` is a path.
  const scheme = /^([a-z][a-z0-9+.-]+):/i.exec(target)?.[1];
  if (scheme !== undefined && /^postgres(?:ql)?$/i.test(scheme)) {
    throw new Error(
      `DATABASE_URL starts with "${scheme}:" but is not a ${scheme}:// URL; write it as postgres://user:password@host:5432/database`,
    );
  }
  if (scheme !== undefined) {
    throw new Error(
      `Unsupported DATABASE_URL scheme "${scheme}:". Use a postgres:// URL or a SQLite file path.`,
    );
  }
  if (/^["'`]|["'`]$/.test(target) || target.includes('://')) {
    throw new Error(
      'DATABASE_URL is neither a postgres:// URL nor a file path (quotes around it, or something before the scheme?); set it to postgres://user:password@host:5432/database or a SQLite file path',
    );
  }
}
