import type { Kysely } from 'kysely';
import type { DatabaseSchema } from './schema.js';

/** How often a process waiting for another's refresh looks again. */
const POLL_MS = 100;

/** What {@link refreshUnderLease} works with. */
export interface LeasedRefresh<T> {
  /**
   * How long a lease lasts at most: a holder that dies leaves it to the others after this. Also
   * how long a caller waits for another holder, at most.
   */
  holdMs: number;
  /**
   * Reads the tokens: the value when they need no refresh, undefined when they do. Asked before
   * the lease is taken and again once it is (another holder may have just stored fresh ones).
   */
  current(): Promise<T | undefined>;
  /**
   * Refreshes, under the lease. `hold` keeps the lease until a promise settles: an answer still
   * on its way when `refresh` gave up waiting for it, which may spend the refresh token.
   */
  refresh(hold: (settling: Promise<unknown>) => void): Promise<T>;
}

/**
 * Refreshes OAuth tokens once across every process on a SQLite database, without holding the
 * database's write lock while the provider answers (a SQLite transaction held through an HTTP
 * round trip stops every other query of the process, and of the others on the file). The
 * process that takes the tokens' lease, a row of `refresh_leases` keyed by `key`, refreshes;
 * the others wait for the fresh tokens it stores, or for the lease to go, and look again. A
 * lease outlives a holder that dies by at most `holdMs`. PostgreSQL locks the tokens' row
 * instead (see the callers).
 *
 * @throws what `current` or `refresh` throw; an Error when another holder keeps the lease past
 *   `holdMs`.
 *
 * @example
 * const token = await refreshUnderLease(db, `account:${id}`, {
 *   holdMs: 25_000,
 *   current: async () => freshTokenOrUndefined(await readAccount(id)),
 *   refresh: (hold) => exchangeAndStore(id, hold),
 * });
 */
export async function refreshUnderLease<T>(
  db: Kysely<DatabaseSchema>,
  key: string,
  lease: LeasedRefresh<T>,
): Promise<T> {
  const deadline = Date.now() + lease.holdMs;
  for (;;) {
    const before = await lease.current();
    if (before !== undefined) return before;
    if (await take(db, key, lease.holdMs)) {
      let held: Promise<unknown> | undefined;
      try {
        const now = await lease.current();
        if (now !== undefined) return now;
        return await lease.refresh((settling) => {
          held = settling;
        });
      } finally {
        if (held === undefined) await release(db, key);
        else void held.then(release.bind(undefined, db, key), release.bind(undefined, db, key));
      }
    }
    if (Date.now() > deadline) throw new Error('another instance is still refreshing');
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Takes the lease of `key` unless another holder's is still running. */
async function take(db: Kysely<DatabaseSchema>, key: string, holdMs: number): Promise<boolean> {
  const now = new Date();
  const until = new Date(now.getTime() + holdMs).toISOString();
  const result = await db
    .insertInto('refresh_leases')
    .values({ key, until })
    .onConflict((oc) =>
      oc.column('key').doUpdateSet({ until }).where('refresh_leases.until', '<', now.toISOString()),
    )
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

async function release(db: Kysely<DatabaseSchema>, key: string): Promise<void> {
  await db
    .deleteFrom('refresh_leases')
    .where('key', '=', key)
    .execute()
    .catch(() => {
      // The database is closing: the lease lapses on its own.
    });
}
