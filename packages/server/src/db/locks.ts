import type { Kysely } from 'kysely';
import type { DatabaseSchema } from './schema.js';

/**
 * Whether the database takes row locks (PostgreSQL) or rejects `for update` (SQLite). Asked of
 * the adapter, as `deleteConnectionTree` does, so store functions keep a plain `(db, ...)`
 * signature.
 */
export function rowLocksSupported(db: Kysely<DatabaseSchema>): boolean {
  return db.getExecutor().adapter.supportsMultipleConnections !== false;
}
