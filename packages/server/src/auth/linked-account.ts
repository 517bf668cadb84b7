import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../db/index.js';

/**
 * The id of better-auth's account row linking `userId` to the OAuth provider `providerId`, or
 * undefined when the user has not linked it. better-auth unlinks by this id, not by provider.
 *
 * @example
 * const accountId = await findLinkedAccountId(db, user.id, 'github');
 */
export async function findLinkedAccountId(
  db: Kysely<DatabaseSchema>,
  userId: string,
  providerId: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('account')
    .select('id')
    .where('userId', '=', userId)
    .where('providerId', '=', providerId)
    .executeTakeFirst();
  return row?.id;
}
