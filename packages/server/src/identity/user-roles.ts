import type { GatewayDatabase } from '../db/index.js';
import { LookupCache } from '../db/lookup-cache.js';
import { prepareQuery } from '../db/prepared-query.js';

/**
 * The role that applies to a user: the assigned one, else `defaultRoleId`; undefined when there
 * is no such user. Kept while the database is unchanged, like token owners.
 *
 * @example
 * const roleOf = createUserRoleLookup(database, 'member');
 * const roleId = await roleOf(userId);
 */
export function createUserRoleLookup(database: GatewayDatabase, defaultRoleId: string) {
  const { db } = database;
  const query = prepareQuery(db, ['userId'], (param) =>
    db
      .selectFrom('user')
      .select((eb) => [
        eb
          .selectFrom('user_roles')
          .select('user_roles.role_id')
          .whereRef('user_roles.user_id', '=', 'user.id')
          .as('assigned'),
      ])
      .where('user.id', '=', param('userId')),
  );
  const roles = new LookupCache<string>(database);
  return (userId: string): Promise<string | undefined> =>
    roles.get(userId, async () => {
      const [row] = await query({ userId });
      return row === undefined ? undefined : (row.assigned ?? defaultRoleId);
    });
}
