import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../../db/index.js';

type Db = Kysely<DatabaseSchema>;

/**
 * Marks the round `id` of a 2026-07-28 tool call used. Returns false when it was used before, on
 * this instance or another sharing the database: the retry is a replay and must be refused.
 *
 * @param expiresAt when the round's state stops verifying anyway (the row may go then).
 */
export async function useRound(
  db: Db,
  round: { id: string; executionId: string; expiresAt: Date },
): Promise<boolean> {
  const result = await db
    .insertInto('mcp_rounds')
    .values({
      id: round.id,
      execution_id: round.executionId,
      expires_at: round.expiresAt.toISOString(),
    })
    .onConflict((conflict) => conflict.column('id').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
}

/** Forgets used rounds whose state no longer verifies; returns how many went. */
export async function forgetExpiredRounds(db: Db, now: Date): Promise<number> {
  const result = await db
    .deleteFrom('mcp_rounds')
    .where('expires_at', '<', now.toISOString())
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
