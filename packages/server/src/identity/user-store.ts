import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../db/index.js';
import { rowLocksSupported } from '../db/locks.js';
import type { UserItem } from '../users/schemas.js';

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
 * Inside a transaction, checks that user `userId` exists and, on PostgreSQL, locks their row
 * until the transaction ends. Returns false when there is no such user.
 *
 * Why a lock: the connection and MCP endpoint tables have no unique index for "one name per
 * user", so a create checks for a duplicate and then inserts. Two instances doing that at once
 * for the same user would both pass the check; holding the user's row serialises them. `for no
 * key update` is the weakest lock that conflicts with itself: it does not block foreign-key
 * checks of other inserts, but it does make a concurrent delete of the user wait, so the insert
 * never fails its foreign key half-way. SQLite has one writer at a time and no row locks.
 *
 * @example
 * await db.transaction().execute(async (trx) => {
 *   if (!(await lockUser(trx, userId))) return { ok: false, problem: 'user_not_found' };
 *   // check for a duplicate, then insert
 * });
 */
export async function lockUser(trx: Kysely<DatabaseSchema>, userId: string): Promise<boolean> {
  const row = await trx
    .selectFrom('user')
    .select('id')
    .where('id', '=', userId)
    .$if(rowLocksSupported(trx), (query) => query.forNoKeyUpdate())
    .executeTakeFirst();
  return row !== undefined;
}
