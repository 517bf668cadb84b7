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
