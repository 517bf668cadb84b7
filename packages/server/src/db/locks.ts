import type { Kysely } from 'kysely';
import type { DatabaseSchema } from './schema.js';

/**
 * Inside a transaction, checks that user `userId` exists and, on PostgreSQL, locks their row
 * until the transaction ends. Returns false when there is no such user.
 *
 * Why a lock: the connection and MCP endpoint tables have no unique index for "one name per
 * user", so a create checks for a duplicate and then inserts. Two instances doing that at once
 * for the same user would both pass the check; holding the user's row serialises them. `for no
 * key update` is the weakest lock that conflicts with itself: it does not block foreign-key
 * checks of other inserts, but it does make a concurrent delete of the user wait, so the insert
 * never fails its foreign key half-way. SQLite has one writer at a time and no row locks.
 *
 * @example
 * await db.transaction().execute(async (trx) => {
 *   if (!(await lockUser(trx, userId))) return { ok: false, problem: 'user_not_found' };
 *   // check for a duplicate, then insert
 * });
 */
export async function lockUser(trx: Kysely<DatabaseSchema>, userId: string): Promise<boolean> {
  const row = await trx
    .selectFrom('user')
    .select('id')
    .where('id', '=', userId)
    .$if(rowLocksSupported(trx), (query) => query.forNoKeyUpdate())
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Whether the database takes row locks (PostgreSQL) or rejects `for update` (SQLite). Asked of
 * the adapter, as `deleteConnectionTree` does, so store functions keep a plain `(db, ...)`
 * signature.
 */
export function rowLocksSupported(db: Kysely<DatabaseSchema>): boolean {
  return db.getExecutor().adapter.supportsMultipleConnections !== false;
}
