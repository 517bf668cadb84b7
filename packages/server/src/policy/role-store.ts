import type { Role } from '@gateway/sdk';
import type { Kysely } from 'kysely';
import type { DatabaseSchema, RoleRow } from '../db/index.js';

type Db = Kysely<DatabaseSchema>;

/** A role row as the policy reads it: patterns still JSON text, so an unchanged role is a string compare. */
export interface StoredRole {
  id: string;
  name: string;
  /** JSON array of patterns, exactly as stored. */
  patterns: string;
}

/** Parses a stored role. Patterns were validated when written. */
export function roleFromRow(row: Pick<RoleRow, 'id' | 'name' | 'patterns'>): Role {
  const patterns: unknown = JSON.parse(row.patterns);
  if (!Array.isArray(patterns) || !patterns.every((pattern) => typeof pattern === 'string')) {
    throw new Error(`Role ${row.id} has malformed patterns in the database`);
  }
  return { id: row.id, name: row.name, patterns };
}

/** Every role, by id. */
export async function listRoleRows(db: Db): Promise<StoredRole[]> {
  return db.selectFrom('roles').select(['id', 'name', 'patterns']).orderBy('id').execute();
}

/** The role with this id. */
export async function findRoleRow(db: Db, id: string): Promise<StoredRole | undefined> {
  return db
    .selectFrom('roles')
    .select(['id', 'name', 'patterns'])
    .where('id', '=', id)
    .executeTakeFirst();
}

/**
 * The role row that applies to `userId`: the assigned one, else `defaultRoleId`, in one query.
 * `undefined` when there is no such user; `role` is `undefined` when the role row is missing
 * (only possible for the default role, which an operator may have named without creating it).
 */
export async function findUserRole(
  db: Db,
  userId: string,
  defaultRoleId: string,
): Promise<{ roleId: string; role: StoredRole | undefined } | undefined> {
  const row = await db
    .selectFrom('user')
    .leftJoin('user_roles', 'user_roles.user_id', 'user.id')
    .leftJoin('roles', (join) =>
      join.on((eb) =>
        eb('roles.id', '=', eb.fn.coalesce('user_roles.role_id', eb.val(defaultRoleId))),
      ),
    )
    .select([
      'user_roles.role_id as assigned',
      'roles.id as id',
      'roles.name as name',
      'roles.patterns as patterns',
    ])
    .where('user.id', '=', userId)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  const role =
    row.id !== null && row.name !== null && row.patterns !== null
      ? { id: row.id, name: row.name, patterns: row.patterns }
      : undefined;
  return { roleId: row.assigned ?? defaultRoleId, role };
}

/** Inserts a role; false when the id is taken. */
export async function insertRole(db: Db, role: Role): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    if (await findRoleRow(trx, role.id)) return false;
    const now = new Date().toISOString();
    await trx
      .insertInto('roles')
      .values({
        id: role.id,
        name: role.name,
        patterns: JSON.stringify(role.patterns),
        created_at: now,
        updated_at: now,
      })
      .execute();
    return true;
  });
}

/** Replaces a role's name and patterns; false when there is no such role. */
export async function updateRoleRow(db: Db, role: Role): Promise<boolean> {
  const result = await db
    .updateTable('roles')
    .set({
      name: role.name,
      patterns: JSON.stringify(role.patterns),
      updated_at: new Date().toISOString(),
    })
    .where('id', '=', role.id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** What deleting a role ran into. */
export type DeleteRoleResult =
  | { ok: true; unassigned: number }
  | { ok: false; problem: 'not_found' }
  | { ok: false; problem: 'service_accounts'; serviceAccounts: string[] };

/**
 * Deletes a role in one transaction. Its users lose their assignment, which makes them fall back
 * to the default role. Service accounts have no such fall-back (their role is the point of them),
 * so a role one still holds is not deleted.
 */
export async function deleteRoleRow(db: Db, id: string): Promise<DeleteRoleResult> {
  return db.transaction().execute(async (trx): Promise<DeleteRoleResult> => {
    if (!(await findRoleRow(trx, id))) return { ok: false, problem: 'not_found' };
    const accounts = await trx
      .selectFrom('service_accounts')
      .select('id')
      .where('role_id', '=', id)
      .execute();
    if (accounts.length > 0) {
      return { ok: false, problem: 'service_accounts', serviceAccounts: accounts.map((a) => a.id) };
    }
    const unassigned = await trx
      .deleteFrom('user_roles')
      .where('role_id', '=', id)
      .executeTakeFirst();
    await trx.deleteFrom('roles').where('id', '=', id).execute();
    return { ok: true, unassigned: Number(unassigned.numDeletedRows) };
  });
}

/** What assigning a role ran into. */
export type AssignRoleResult =
  | { ok: true }
  | { ok: false; problem: 'user_not_found' | 'role_not_found' | 'last_admin' };

/**
 * Assigns `roleId` to `userId` (replacing any assignment), in one transaction. Refuses to take
 * the admin role from the last admin: nobody could assign roles any more but the service secret.
 */
export async function assignRoleRow(
  db: Db,
  userId: string,
  roleId: string,
  adminRoleId: string,
): Promise<AssignRoleResult> {
  return db.transaction().execute(async (trx): Promise<AssignRoleResult> => {
    const user = await trx
      .selectFrom('user')
      .select('id')
      .where('id', '=', userId)
      .executeTakeFirst();
    if (!user) return { ok: false, problem: 'user_not_found' };
    if (!(await findRoleRow(trx, roleId))) return { ok: false, problem: 'role_not_found' };
    const current = await trx
      .selectFrom('user_roles')
      .select('role_id')
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (current?.role_id === adminRoleId && roleId !== adminRoleId) {
      const admins = await trx
        .selectFrom('user_roles')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('role_id', '=', adminRoleId)
        .executeTakeFirstOrThrow();
      if (Number(admins.count) <= 1) return { ok: false, problem: 'last_admin' };
    }
    const now = new Date().toISOString();
    await trx
      .insertInto('user_roles')
      .values({ user_id: userId, role_id: roleId, assigned_at: now })
      .onConflict((oc) => oc.column('user_id').doUpdateSet({ role_id: roleId, assigned_at: now }))
      .execute();
    return { ok: true };
  });
}
