import { type Expression, expressionBuilder, type Kysely } from 'kysely';
import { recordTokenUse } from '../auth/last-used.js';
import type { DatabaseSchema } from '../db/index.js';
import { prepareQuery } from '../db/prepared-query.js';
import { unmarkedWrite } from '../db/unmarked-write.js';
import { applyingRole } from '../identity/applying-role.js';

/**
 * The endpoint a `gw_mcp_` token names, by the token's SHA-256 (`hash`): what it serves
 * (`tools`, `mode`), its user and the role that applies to them, in one statement. Built and
 * compiled once: every MCP call runs it (identity's token repository, which caches the answer).
 * The role's row comes in the same query because on PostgreSQL, where nothing is cached, a
 * second query was a third of a call's round trips.
 *
 * @example
 * const byToken = prepareEndpointByToken(db, 'member');
 * const [row] = await byToken({ hash: hashToken(token) });
 */
export function prepareEndpointByToken(db: Kysely<DatabaseSchema>, defaultRoleId: string) {
  return prepareQuery(db, ['hash'], (param) => endpointByToken(db, defaultRoleId, param('hash')));
}

/**
 * The query of {@link prepareEndpointByToken}, for a statement that selects more beside it (on
 * PostgreSQL a session's request reads its session's state in the same statement).
 */
export function endpointByToken(db: Kysely<DatabaseSchema>, defaultRoleId: string, hash: string) {
  return db
    .selectFrom('mcp_endpoints')
    .select((eb) => [
      'mcp_endpoints.id',
      'mcp_endpoints.user_id',
      'mcp_endpoints.tools',
      'mcp_endpoints.mode',
      ...applyingRole(eb.ref('mcp_endpoints.user_id'), defaultRoleId),
    ])
    .where('mcp_endpoints.token_hash', '=', hash);
}

/**
 * One column of the endpoint `endpointId` names, as a scalar subquery for another owner's
 * statement (an OAuth access token reads its endpoint's user and scope with it).
 *
 * @example
 * // in the owner of the OAuth tokens' table, selecting from it
 * .select((eb) => [endpointColumn(eb.ref('mcp_oauth_tokens.endpoint_id'), 'user_id').as('user_id')])
 */
export function endpointColumn<Name extends 'user_id' | 'tools' | 'mode'>(
  endpointId: Expression<string>,
  name: Name,
) {
  return expressionBuilder<DatabaseSchema, never>()
    .selectFrom('mcp_endpoints')
    .select(name)
    .where('mcp_endpoints.id', '=', endpointId);
}

/**
 * Records that the endpoint `id` was used, writing its `last_used_at` at most once a minute and
 * never waiting for it (see recordTokenUse in auth/last-used.ts).
 *
 * @example
 * recordEndpointUse(db, owner.endpointId);
 */
export function recordEndpointUse(db: Kysely<DatabaseSchema>, id: string): void {
  recordTokenUse(db, id, (lastUsedAt) =>
    unmarkedWrite(
      db.updateTable('mcp_endpoints').set({ last_used_at: lastUsedAt }).where('id', '=', id),
    ).execute(),
  );
}
