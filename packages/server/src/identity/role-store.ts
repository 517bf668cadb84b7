import type { Role } from '@gateway/sdk/kernel';
import type { Kysely } from 'kysely';
import type { DatabaseSchema, GatewayDatabase } from '../db/index.js';
import { rowLocksSupported } from '../db/locks.js';
import { LookupCache } from '../db/lookup-cache.js';
import { prepareQuery } from '../db/prepared-query.js';
import type { RoleRow } from './tables.js';

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

/** The lookups every MCP call runs, prepared once; see {@link prepareRoleLookups}. */
export interface RoleLookups {
  /**
   * The role row that applies to `userId`: the assigned one, else the default role. `undefined`
   * when there is no such user; `role` is `undefined` when the role row is missing (only possible
   * for the default role, which an operator may have named without creating it).
   */
  userRole(userId: string): Promise<{ roleId: string; role: StoredRole | undefined } | undefined>;
  /** The role with this id. */
  role(id: string): Promise<StoredRole | undefined>;
}

/**
 * Prepares the role lookups of the hot path (every MCP call resolves its caller's role), built
 * and compiled once. A user's role is one query of scalar subqueries on the user's row, not a
 * join: better-sqlite3's SQLite is built with STAT4, so it prepares a statement again whenever a
 * bound value compared to an indexed column may change the plan, which a join's does; the join
 * ran five to seven times slower than this query. Answers are kept while the database is
 * unchanged ({@link LookupCache}): a role edited or assigned on any instance applies to the next
 * lookup.
 *
 * @example
 * const lookups = prepareRoleLookups(database, 'member');
 * const found = await lookups.userRole(userId);
 */
export function prepareRoleLookups(database: GatewayDatabase, defaultRoleId: string): RoleLookups {
  const { db } = database;
  const users = new LookupCache<{ roleId: string; role: StoredRole | undefined }>(database);
  const roles = new LookupCache<StoredRole>(database);
  const userRole = prepareQuery(db, ['userId'], (param) =>
    db
      .selectFrom('user')
      .select((eb) => {
        const assigned = eb
          .selectFrom('user_roles')
          .select('role_id')
          .whereRef('user_roles.user_id', '=', 'user.id');
        const applying = eb.fn.coalesce(assigned, eb.val(defaultRoleId));
        const column = (name: 'name' | 'patterns') =>
          eb.selectFrom('roles').select(name).where('roles.id', '=', applying);
        return [
          assigned.as('assigned'),
          column('name').as('name'),
          column('patterns').as('patterns'),
        ];
      })
      .where('user.id', '=', param('userId')),
  );
  const role = prepareQuery(db, ['id'], (param) =>
    db.selectFrom('roles').select(['id', 'name', 'patterns']).where('id', '=', param('id')),
  );
  return {
    userRole: (userId) =>
      users.get(userId, async () => {
        const [row] = await userRole({ userId });
        if (row === undefined) return undefined;
        const roleId = row.assigned ?? defaultRoleId;
        const { name, patterns } = row;
        const role =
          name !== null && patterns !== null ? { id: roleId, name, patterns } : undefined;
        return { roleId, role };
      }),
    role: (id) =>
      roles.get(id, async () => {
        const [row] = await role({ id });
        return row;
      }),
  };
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
      // Two admins demoting each other at once would each count two admins and both go ahead.
      // On PostgreSQL the admin role's row puts them in line: the second counts after the first
      // commits. (SQLite has one writer; a transaction that read stale data fails to write.)
      if (rowLocksSupported(trx)) {
        await trx
          .selectFrom('roles')
          .select('id')
          .where('id', '=', adminRoleId)
          .forUpdate()
          .execute();
      }
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
