import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../db/index.js';
import { accountsNeedingReconnect } from '../vending/index.js';

/**
 * A user's email, name and the role that applies to them (the assigned one, else
 * `defaultRoleId`); undefined when the user does not exist.
 *
 * @example
 * const profile = await findUserProfile(db, userId, 'member');
 */
export async function findUserProfile(
  db: Kysely<DatabaseSchema>,
  userId: string,
  defaultRoleId: string,
): Promise<{ email: string; name: string; roleId: string } | undefined> {
  const row = await db
    .selectFrom('user')
    .leftJoin('user_roles', 'user_roles.user_id', 'user.id')
    .select(['user.email', 'user.name', 'user_roles.role_id'])
    .where('user.id', '=', userId)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  return { email: row.email, name: row.name, roleId: row.role_id ?? defaultRoleId };
}

/**
 * A service account's name and role; undefined when it does not exist.
 *
 * @example
 * const account = await findServiceAccount(db, serviceAccountId);
 */
export async function findServiceAccount(
  db: Kysely<DatabaseSchema>,
  id: string,
): Promise<{ name: string; roleId: string } | undefined> {
  const row = await db
    .selectFrom('service_accounts')
    .select(['name', 'role_id'])
    .where('id', '=', id)
    .executeTakeFirst();
  return row === undefined ? undefined : { name: row.name, roleId: row.role_id };
}

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
    db
      .selectFrom('account')
      .select(['id', 'providerId', 'createdAt', 'updatedAt'])
      .where('userId', '=', userId)
      .where('providerId', '!=', 'credential')
      .orderBy('providerId')
      .orderBy('createdAt')
      .execute(),
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
