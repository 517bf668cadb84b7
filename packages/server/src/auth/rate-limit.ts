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
 * Counts one request under `key` against `rule` as a token bucket (the generic cell rate
 * algorithm): `max` requests may come at once, and the bucket refills at `max` per `window`
 * seconds, continuously. So "10 a minute" is a rate: a steady request every 8 seconds is never
 * refused (issue 39: better-auth's counter, reset only by a whole window without requests,
 * refused the 11th of such a stream), and after a burst of 10 the next is allowed 6 s later.
 *
 * Stored in better-auth's `rateLimit` table: `lastRequest` holds the bucket's theoretical arrival
 * time (when it will be full again plus one interval; in the past means full), `count` the
 * requests since it was last full (for reading). Each step is one conditional statement, so
 * concurrent requests (on any instance sharing the database) cannot all slip past a stale read.
 *
 * The gateway's sign-in and sign-up (before better-auth) and its own sensitive endpoints (the CLI
 * token exchange, wrong credentials) use it.
 *
 * @example
 * const decision = await consumeRateLimit(db, `${ip}|/api/cli/token`, { window: 60, max: 10 });
 * if (!decision.allowed) {
 *   throw new Refusal('rate_limited', 'Slow down', undefined, { retryAfter: decision.retryAfter });
 * }
 */
export async function consumeRateLimit(
  db: Kysely<DatabaseSchema>,
  key: string,
  rule: RateLimitRule,
  now: number = Date.now(),
): Promise<RateLimitDecision> {
  // One request's share of the window, and how far ahead of now the bucket may be booked.
  const interval = Math.max(1, Math.floor((rule.window * 1000) / Math.max(1, rule.max)));
  const tolerance = rule.window * 1000 - interval;

  const created = await db
    .insertInto('rateLimit')
    .values({ id: crypto.randomUUID(), key, count: 1, lastRequest: now + interval })
    .onConflict((oc) => oc.column('key').doNothing())
    .executeTakeFirst();
  if (Number(created.numInsertedOrUpdatedRows ?? 0) > 0) return { allowed: true };

  const counted = await db
    .updateTable('rateLimit')
    .set((eb) => ({
      lastRequest: eb
        .case()
        .when('lastRequest', '>', now)
        .then(eb('lastRequest', '+', interval))
        .else(now + interval)
        .end()
        .$castTo<number>(),
      count: eb
        .case()
        .when('lastRequest', '>', now)
        .then(eb('count', '+', 1))
        .else(1)
        .end(),
    }))
    .where('key', '=', key)
    .where('lastRequest', '<=', now + tolerance)
    .executeTakeFirst();
  if (Number(counted.numUpdatedRows) > 0) return { allowed: true };

  const row = await db
    .selectFrom('rateLimit')
    .select('lastRequest')
    .where('key', '=', key)
    .executeTakeFirst();
  const booked = Number(row?.lastRequest ?? now);
  return {
    allowed: false,
    retryAfter: Math.max(1, Math.ceil((booked - tolerance - now) / 1000)),
  };
}
