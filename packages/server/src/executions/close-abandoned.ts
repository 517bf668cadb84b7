import { type Kysely, sql } from 'kysely';
import type { DatabaseSchema, GatewayDatabase } from '../db/index.js';
import { unmarkedWrite } from '../db/unmarked-write.js';

/** The error an abandoned call's record gets. */
export const ABANDONED_ERROR = 'Abandoned: no answer or result in time, closed by the gateway';

/**
 * How many records one pass closes at most, and reads in one batch, oldest first (by id among
 * records started in the same millisecond, so every instance's pass takes the same ones); the
 * next pass takes the rest. A pass reads on past batches of calls still alive.
 */
export const ABANDONED_BATCH = 500;

/**
 * Closes out execution records that still have no outcome though the call cannot be alive: its
 * latest step (start, a question asked, a retry: `started_at` plus the `duration_ms` it had then)
 * is more than `windowMs` ago. A call asked a question the client never answered (a 2026-07-28
 * client that did not retry), or ran on an instance that stopped. Such a record becomes
 * `timeout`, and a question still `pending` becomes `expired`.
 *
 * Cheap: the partial index of records without an outcome holds only open calls. Safe on several
 * instances at once: each update is conditional on the record still having no outcome, so a call
 * that finished meanwhile keeps its result, and two sweepers close a record once.
 *
 * @returns how many records were closed.
 */
export async function closeAbandonedExecutions(
  database: GatewayDatabase,
  options: { now: Date; windowMs: number },
): Promise<number> {
  const { db } = database;
  const now = options.now.getTime();
  const cutoff = new Date(now - options.windowMs);
  const stale: string[] = [];
  // Past a batch of calls still alive (an old start, a recent step) to the abandoned ones behind
  // it: a full batch of live calls must not hide them from every pass.
  let after: OpenRecord | undefined;
  for (;;) {
    const rows: OpenRecord[] = await openRecordsBefore(db, cutoff, after).execute();
    for (const row of rows) {
      if (Date.parse(row.started_at) + (row.duration_ms ?? 0) + options.windowMs < now) {
        stale.push(row.id);
      }
    }
    if (rows.length < ABANDONED_BATCH || stale.length >= ABANDONED_BATCH) break;
    after = rows.at(-1);
  }
  if (stale.length === 0) return 0;
  // Execution records are no cached lookup's: closing them leaves cached tokens and roles.
  const result = await unmarkedWrite(
    db
      .updateTable('executions')
      .set({
        outcome: 'timeout',
        error: ABANDONED_ERROR,
        approval: sql<
          string | null
        >`case when approval = 'pending' then 'expired' else approval end`,
      })
      .where('id', 'in', stale)
      .where('outcome', 'is', null),
  ).executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** What the sweep reads of an open record. */
interface OpenRecord {
  id: string;
  started_at: string;
  duration_ms: number | null;
}

/**
 * A batch of the records without an outcome started before `cutoff` (and after `after`, in the
 * order `(started_at, id)`), read from the partial index of open records (migration 019), which
 * holds them in this order.
 */
export function openRecordsBefore(db: Kysely<DatabaseSchema>, cutoff: Date, after?: OpenRecord) {
  let query = db
    .selectFrom('executions')
    .select(['id', 'started_at', 'duration_ms'])
    .where('outcome', 'is', null)
    .where('started_at', '<', cutoff.toISOString());
  if (after !== undefined) {
    query = query.where((eb) =>
      eb.or([
        eb('started_at', '>', after.started_at),
        eb.and([eb('started_at', '=', after.started_at), eb('id', '>', after.id)]),
      ]),
    );
  }
  return query.orderBy('started_at').orderBy('id').limit(ABANDONED_BATCH);
}
