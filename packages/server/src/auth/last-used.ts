import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../db/index.js';

/** How often this process writes one token's `last_used_at` at most. */
export const LAST_USED_EVERY_MS = 60_000;

/** Tokens remembered per database; past it the memory starts over (one early write per token). */
const MAX_REMEMBERED = 10_000;

/** When this process last wrote each token's `last_used_at`, per database. */
const written = new WeakMap<Kysely<DatabaseSchema>, Map<string, number>>();

/**
 * Records that a token was used: calls `write` with the time for its `last_used_at`, unless this
 * process did for the same token less than {@link LAST_USED_EVERY_MS} ago, and never waits for
 * the write nor fails on it. The time is informational (shown in the web app and the CLI, accurate
 * to a minute), while a write per request would cost every MCP call and API request a synced
 * commit on SQLite. `write` belongs to the owner of the token's table (table-owners.test.ts), and
 * marks its statement with `unmarkedWrite`: no cached lookup reads the time, so the write leaves
 * cached token owners in place.
 *
 * @example
 * // in the module that owns `table`
 * recordTokenUse(db, id, (lastUsedAt) =>
 *   unmarkedWrite(db.updateTable(table).set({ last_used_at: lastUsedAt }).where('id', '=', id)).execute(),
 * );
 */
export function recordTokenUse(
  db: Kysely<DatabaseSchema>,
  id: string,
  write: (lastUsedAt: string) => Promise<unknown>,
): void {
  let times = written.get(db);
  if (times === undefined) {
    times = new Map();
    written.set(db, times);
  }
  const now = Date.now();
  const last = times.get(id);
  if (last !== undefined && now - last < LAST_USED_EVERY_MS) return;
  if (times.size >= MAX_REMEMBERED) times.clear();
  times.set(id, now);
  void write(new Date(now).toISOString()).catch(() => {});
}
