import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../db/index.js';
import { accountsNeedingReconnect } from '../vending/index.js';
import { listLinkedAccounts } from '../vending/linked-accounts.js';

/**
 * The OAuth accounts linked to `userId`, by provider then age; the password sign-in
 * (`credential`) is not one. Only ids, times and whether it needs a reconnect: never a token.
 *
 * @example
 * const linked = await findLinkedAccounts(db, userId);
 */
export async function findLinkedAccounts(
  db: Kysely<DatabaseSchema>,
  userId: string,
): Promise<
  {
    id: string;
    providerId: string;
    createdAt: string;
    updatedAt: string;
    needsReconnect: boolean;
  }[]
> {
  const [rows, stale] = await Promise.all([
    listLinkedAccounts(db, userId),
    accountsNeedingReconnect(db, userId),
  ]);
  const staleIds = new Set(stale.map((account) => account.accountId));
  return rows.map((row) => ({
    id: row.id,
    providerId: row.providerId,
    createdAt: new Date(row.createdAt).toISOString(),
    updatedAt: new Date(row.updatedAt).toISOString(),
    needsReconnect: staleIds.has(row.id),
  }));
}
