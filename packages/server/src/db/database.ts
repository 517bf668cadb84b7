import { join } from 'node:path';
import { Kysely, sql } from 'kysely';
import { isPostgresUrl, openPostgresDialect } from './postgres.js';
import type { DatabaseSchema } from './schema.js';
import { openSqliteDialect } from './sqlite.js';

/** Which database engine a {@link GatewayDatabase} talks to. */
export type DatabaseDialect = 'sqlite' | 'postgres';

/** An open gateway database. */
export interface GatewayDatabase {
  /** The query builder; every query in the server goes through it. */
  db: Kysely<DatabaseSchema>;
  /** The engine, for the few places where SQL differs (row locks, LISTEN/NOTIFY). */
  dialect: DatabaseDialect;
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
 * @throws when `url` has another scheme (`mysql://...`), or the database cannot be opened or
 * reached.
 */
export async function openDatabase(
  url: string | undefined,
  dataDir: string,
): Promise<GatewayDatabase> {
  const target = url?.trim() || join(dataDir, DEFAULT_SQLITE_FILE);
  const dialect: DatabaseDialect = isPostgresUrl(target) ? 'postgres' : 'sqlite';
  if (dialect === 'sqlite') rejectOtherUrlSchemes(target);

  const db = new Kysely<DatabaseSchema>({
    dialect: dialect === 'postgres' ? openPostgresDialect(target) : openSqliteDialect(target),
  });
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
  return { db, dialect, close };
}

function rejectOtherUrlSchemes(target: string): void {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(target)?.[1];
  // Only the scheme is named: the rest of a URL may hold a password.
  if (scheme) {
    throw new Error(
      `Unsupported DATABASE_URL scheme "${scheme}:". Use a postgres:// URL or a SQLite file path.`,
    );
  }
}
