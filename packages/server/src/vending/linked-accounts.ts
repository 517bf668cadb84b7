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

/** The providers `userId` has linked an account of, one entry per account. */
export async function linkedProviderIds(
  db: Kysely<DatabaseSchema>,
  userId: string,
): Promise<{ providerId: string }[]> {
  return db.selectFrom('account').select('providerId').where('userId', '=', userId).execute();
}

/**
 * The OAuth accounts linked to `userId`, by provider then age; the password sign-in
 * (`credential`) is not one. Ids and times only, never a token.
 */
export async function listLinkedAccounts(
  db: Kysely<DatabaseSchema>,
  userId: string,
): Promise<
  { id: string; providerId: string; createdAt: string | Date; updatedAt: string | Date }[]
> {
  return db
    .selectFrom('account')
    .select(['id', 'providerId', 'createdAt', 'updatedAt'])
    .where('userId', '=', userId)
    .where('providerId', '!=', 'credential')
    .orderBy('providerId')
    .orderBy('createdAt')
    .orderBy('id')
    .execute();
}

/** The columns of an account that hold OAuth tokens, encrypted. */
export const ACCOUNT_TOKEN_COLUMNS = ['accessToken', 'refreshToken', 'idToken'] as const;

/** A column of {@link ACCOUNT_TOKEN_COLUMNS}. */
export type AccountTokenColumn = (typeof ACCOUNT_TOKEN_COLUMNS)[number];

/** Up to `limit` accounts with an id after `after`, by id, with their stored tokens (`gateway rekey`). */
export async function accountTokensAfter(
  db: Kysely<DatabaseSchema>,
  after: string,
  limit: number,
): Promise<({ id: string } & Record<AccountTokenColumn, string | null>)[]> {
  return db
    .selectFrom('account')
    .select(['id', ...ACCOUNT_TOKEN_COLUMNS])
    .where('id', '>', after)
    .orderBy('id')
    .limit(limit)
    .execute();
}

/**
 * Writes `changes` to account `id` if each changed column still holds what `read` says it held;
 * false when one changed since (better-auth refreshed it meanwhile).
 */
export async function replaceAccountTokens(
  db: Kysely<DatabaseSchema>,
  id: string,
  changes: Partial<Record<AccountTokenColumn, string>>,
  read: Record<AccountTokenColumn, string | null>,
): Promise<boolean> {
  let update = db.updateTable('account').set(changes).where('id', '=', id);
  for (const column of Object.keys(changes) as AccountTokenColumn[]) {
    update = update.where(column, '=', read[column]);
  }
  const result = await update.executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
