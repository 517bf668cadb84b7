import { type Expression, sql } from 'kysely';

/**
 * The comment that ends a statement written through {@link unmarkedWrite}: SQLite's change mark
 * (`db/sqlite.ts`) leaves such a write uncounted. Nothing else in the SQL decides it.
 */
export const UNMARKED_WRITE = '/* unmarked write */';

const comment = sql.raw(UNMARKED_WRITE);

/**
 * Marks a write that no cached lookup (`db/lookup-cache.ts`) reads, so it leaves the database's
 * change mark as it is: execution records, and a token's `last_used_at`. Without it, a busy
 * gateway would forget its cached token owners and roles after every batch of records. Every
 * other write counts, so only a write its author marks here is left out; marking a write a
 * lookup does read would keep answers stale until the next change.
 *
 * @example
 * await unmarkedWrite(db.updateTable(table).set({ last_used_at: now }).where('id', '=', id)).execute();
 */
export function unmarkedWrite<Query extends { modifyEnd(modifier: Expression<unknown>): Query }>(
  query: Query,
): Query {
  return query.modifyEnd(comment);
}
