import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../db/index.js';
import { prepareQuery } from '../db/prepared-query.js';
import { applyingRole } from '../identity/applying-role.js';
import { endpointColumn } from '../mcp-endpoints/token-query.js';

/**
 * A `gw_oat_` access token, by its SHA-256 (`hash`): its client, resource, scope and expiry, and
 * the endpoint it reaches with that endpoint's user, scope and role, in one statement of scalar
 * subqueries (see prepareEndpointByToken in mcp-endpoints/token-query.ts). Built and compiled
 * once: every MCP call through an OAuth client runs it. `user_id` is null when the endpoint is gone.
 *
 * @example
 * const byToken = prepareAccessTokenQuery(db, 'member');
 * const [row] = await byToken({ hash: hashToken(token) });
 */
export function prepareAccessTokenQuery(db: Kysely<DatabaseSchema>, defaultRoleId: string) {
  return prepareQuery(db, ['hash'], (param) => accessTokenByHash(db, defaultRoleId, param('hash')));
}

/**
 * The query of {@link prepareAccessTokenQuery}, for a statement that selects more beside it (on
 * PostgreSQL a session's request reads its session's state in the same statement).
 */
export function accessTokenByHash(db: Kysely<DatabaseSchema>, defaultRoleId: string, hash: string) {
  return db
    .selectFrom('mcp_oauth_tokens')
    .select((eb) => {
      const endpointId = eb.ref('mcp_oauth_tokens.endpoint_id');
      const owner = endpointColumn(endpointId, 'user_id');
      return [
        'mcp_oauth_tokens.endpoint_id',
        'mcp_oauth_tokens.client_id',
        'mcp_oauth_tokens.resource',
        'mcp_oauth_tokens.scope',
        'mcp_oauth_tokens.expires_at',
        owner.as('user_id'),
        endpointColumn(endpointId, 'tools').as('tools'),
        endpointColumn(endpointId, 'mode').as('mode'),
        ...applyingRole(owner.$asScalar(), defaultRoleId),
      ];
    })
    .where('mcp_oauth_tokens.token_hash', '=', hash)
    .where('mcp_oauth_tokens.kind', '=', 'access');
}
