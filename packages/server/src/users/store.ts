import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../db/index.js';
import type { UserItem } from './schemas.js';

/**
 * Every user, oldest first, with the role that applies to them: the assigned one, else
 * `defaultRoleId`.
 *
 * @example
 * const users = await listUsers(db, 'member');
 */
export async function listUsers(
  db: Kysely<DatabaseSchema>,
  defaultRoleId: string,
): Promise<UserItem[]> {
  const rows = await db
    .selectFrom('user')
    .leftJoin('user_roles', 'user_roles.user_id', 'user.id')
    .select(['user.id', 'user.name', 'user.email', 'user.createdAt', 'user_roles.role_id'])
    .orderBy('user.createdAt')
    .orderBy('user.id')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    email: row.email,
    createdAt: new Date(row.createdAt).toISOString(),
    roleId: row.role_id ?? defaultRoleId,
    roleAssigned: row.role_id !== null,
  }));
}

/** How many of `emails` already have an account. */
export async function countExistingEmails(
  db: Kysely<DatabaseSchema>,
  emails: readonly string[],
): Promise<number> {
  const existing = await db
    .selectFrom('user')
    .select('email')
    .where('email', 'in', [...emails])
    .execute();
  return existing.length;
}

/** Whether anyone has an account yet. */
export async function anyUserExists(db: Kysely<DatabaseSchema>): Promise<boolean> {
  return (await db.selectFrom('user').select('id').limit(1).executeTakeFirst()) !== undefined;
}
