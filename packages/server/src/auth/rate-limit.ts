import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../db/index.js';

/** A limit: at most `max` requests per `window` seconds. */
export interface RateLimitRule {
  window: number;
  max: number;
}

/** The outcome of one request against a limit. */
export type RateLimitDecision = { allowed: true } | { allowed: false; retryAfter: number };

/**
 * Counts one request under `key` in better-auth's `rateLimit` table, with better-auth's own
 * rule: a counter resets once `window` seconds pass without a request, and a request past `max`
 * inside the window is refused. Each step is one conditional statement, so concurrent requests
 * (on any instance sharing the database) cannot all slip past a stale read.
 *
 * The gateway's own sensitive endpoints (the CLI token exchange) use it; better-auth applies the
 * same table to sign-in and sign-up.
 *
 * @example
 * const decision = await consumeRateLimit(db, `${ip}|/api/cli/token`, { window: 60, max: 10 });
 * if (!decision.allowed) throw new HttpError('rate_limited', `Retry in ${decision.retryAfter}s`);
 */
export async function consumeRateLimit(
  db: Kysely<DatabaseSchema>,
  key: string,
  rule: RateLimitRule,
  now: number = Date.now(),
): Promise<RateLimitDecision> {
  const windowStart = now - rule.window * 1000;

  const created = await db
    .insertInto('rateLimit')
    .values({ id: crypto.randomUUID(), key, count: 1, lastRequest: now })
    .onConflict((oc) => oc.column('key').doNothing())
    .executeTakeFirst();
  if (Number(created.numInsertedOrUpdatedRows ?? 0) > 0) return { allowed: true };

  const reset = await db
    .updateTable('rateLimit')
    .set({ count: 1, lastRequest: now })
    .where('key', '=', key)
    .where('lastRequest', '<=', windowStart)
    .executeTakeFirst();
  if (Number(reset.numUpdatedRows) > 0) return { allowed: true };

  const counted = await db
    .updateTable('rateLimit')
    .set((eb) => ({ count: eb('count', '+', 1), lastRequest: now }))
    .where('key', '=', key)
    .where('lastRequest', '>', windowStart)
    .where('count', '<', rule.max)
    .executeTakeFirst();
  if (Number(counted.numUpdatedRows) > 0) return { allowed: true };

  const row = await db
    .selectFrom('rateLimit')
    .select('lastRequest')
    .where('key', '=', key)
    .executeTakeFirst();
  const last = Number(row?.lastRequest ?? now);
  return {
    allowed: false,
    retryAfter: Math.max(1, Math.ceil((last + rule.window * 1000 - now) / 1000)),
  };
}
