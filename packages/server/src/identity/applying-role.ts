import { type Expression, expressionBuilder } from 'kysely';
import type { DatabaseSchema } from '../db/index.js';

/**
 * The role that applies to a user, as scalar subqueries for another owner's statement to select
 * beside its own row: `role_id`, the assigned role (null: none), and the applying role's
 * `role_name` and `role_patterns` (the assigned role, else `defaultRoleId`; null when that row is
 * missing). Identity owns `user_roles` and `roles`, so the subqueries are built here; the token
 * lookups of the hot path (an endpoint's token, an OAuth access token) read the role in the same
 * statement as the token, one round trip per MCP call. Subqueries rather than joins, which SQLite
 * would prepare again on every run (see prepareRoleLookups in role-store.ts).
 *
 * @example
 * // in the owner of the endpoints' table, selecting from it
 * .select((eb) => ['mcp_endpoints.id', ...applyingRole(eb.ref('mcp_endpoints.user_id'), 'member')])
 */
export function applyingRole(userId: Expression<string | null>, defaultRoleId: string) {
  const eb = expressionBuilder<DatabaseSchema, never>();
  const assigned = eb
    .selectFrom('user_roles')
    .select('user_roles.role_id')
    .where('user_roles.user_id', '=', userId);
  const applying = eb.fn.coalesce(assigned, eb.val(defaultRoleId));
  const column = (name: 'name' | 'patterns') =>
    eb.selectFrom('roles').select(name).where('roles.id', '=', applying);
  return [
    assigned.as('role_id'),
    column('name').as('role_name'),
    column('patterns').as('role_patterns'),
  ] as const;
}
