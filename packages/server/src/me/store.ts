import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../db/index.js';
import { hashToken } from '../secrets/index.js';

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
 * (`credential`) is not one. Only ids and times: never a token.
 *
 * @example
 * const linked = await findLinkedAccounts(db, userId);
 */
export async function findLinkedAccounts(
  db: Kysely<DatabaseSchema>,
  userId: string,
): Promise<{ id: string; providerId: string; createdAt: string; updatedAt: string }[]> {
  const rows = await db
    .selectFrom('account')
    .select(['id', 'providerId', 'createdAt', 'updatedAt'])
    .where('userId', '=', userId)
    .where('providerId', '!=', 'credential')
    .orderBy('providerId')
    .orderBy('createdAt')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    providerId: row.providerId,
    createdAt: new Date(row.createdAt).toISOString(),
    updatedAt: new Date(row.updatedAt).toISOString(),
  }));
}

/**
 * The id and expiry of the `gw_cli_` token `token` (found by its hash); undefined when it is no
 * CLI token. For `GET /api/me`, which the token already authenticated.
 *
 * @example
 * const current = await findCliToken(db, bearer); // { id, expiresAt: '2027-02-23T…' | null }
 */
export async function findCliToken(
  db: Kysely<DatabaseSchema>,
  token: string,
): Promise<{ id: string; expiresAt: string | null } | undefined> {
  const row = await db
    .selectFrom('api_tokens')
    .select(['id', 'expires_at'])
    .where('token_hash', '=', hashToken(token))
    .where('kind', '=', 'cli')
    .executeTakeFirst();
  return row === undefined ? undefined : { id: row.id, expiresAt: row.expires_at };
}
