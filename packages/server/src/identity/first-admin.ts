import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../db/index.js';
import { ADMIN_ROLE_ID } from './principal.js';

/**
 * Makes `userId` an admin when it is the first user: no user was created before it and no admin
 * exists yet. Runs after better-auth commits a new user (its `user.create.after` hook).
 *
 * "First" is decided by creation order rather than by counting users, so two people signing up
 * at the same moment on an empty gateway cannot both miss out (each sees the other) or both win:
 * exactly one of them is the oldest.
 *
 * @returns whether the user was made admin.
 * @example
 * databaseHooks: { user: { create: { after: (user) => grantFirstAdmin(db, user.id) } } }
 */
export async function grantFirstAdmin(
  db: Kysely<DatabaseSchema>,
  userId: string,
): Promise<boolean> {
  const me = await db
    .selectFrom('user')
    .select(['id', 'createdAt'])
    .where('id', '=', userId)
    .executeTakeFirst();
  if (!me) return false;
  const createdAt = me.createdAt instanceof Date ? me.createdAt : new Date(me.createdAt);
  // Written the way each engine stores better-auth dates, so the comparison is like for like.
  const older = await db
    .selectFrom('user')
    .select('id')
    .where('id', '<>', userId)
    .where((eb) =>
      eb.or([
        eb('createdAt', '<', createdAt),
        eb.and([eb('createdAt', '=', createdAt), eb('id', '<', userId)]),
      ]),
    )
    .limit(1)
    .executeTakeFirst();
  if (older) return false;
  const admin = await db
    .selectFrom('user_roles')
    .select('user_id')
    .where('role_id', '=', ADMIN_ROLE_ID)
    .limit(1)
    .executeTakeFirst();
  if (admin) return false;
  const inserted = await db
    .insertInto('user_roles')
    .values({ user_id: userId, role_id: ADMIN_ROLE_ID, assigned_at: new Date().toISOString() })
    .onConflict((oc) => oc.column('user_id').doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
}

/**
 * Makes `userId` an admin, replacing any role they held: an email the operator named as an
 * admin's (`GATEWAY_ADMIN_EMAILS`), once shown to be owned.
 *
 * @example
 * await grantAdmin(db, user.id);
 */
export async function grantAdmin(db: Kysely<DatabaseSchema>, userId: string): Promise<void> {
  await db
    .insertInto('user_roles')
    .values({ user_id: userId, role_id: ADMIN_ROLE_ID, assigned_at: new Date().toISOString() })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ role_id: ADMIN_ROLE_ID }))
    .execute();
}
