import { recordTokenUse } from '../auth/last-used.js';
import type { GatewayDatabase } from '../db/index.js';
import { prepareQuery } from '../db/prepared-query.js';
import { HttpError } from '../http/errors.js';
import { hashToken } from '../secrets/index.js';

/** Who an MCP request acts for: a user through one of their endpoints, or a service account. */
export type McpPrincipal =
  | { kind: 'user'; userId: string; endpointId: string }
  | { kind: 'service_account'; serviceAccountId: string; roleId: string };

/** The id tool handlers see as `ctx.userId`, and execution records keep: a user's or an account's. */
export function subjectId(principal: McpPrincipal): string {
  return principal.kind === 'user' ? principal.userId : principal.serviceAccountId;
}

/** A stable key naming the principal, for binding sessions and request state to it. */
export function principalKey(principal: McpPrincipal): string {
  return principal.kind === 'user'
    ? `user:${principal.userId}`
    : `service_account:${principal.serviceAccountId}`;
}

/** Why a request was not authenticated; the `WWW-Authenticate` challenge depends on it. */
export class McpAuthError extends HttpError {
  readonly challenge: string;

  constructor(message: string, invalidToken: boolean) {
    super('unauthorized', message);
    this.challenge = invalidToken
      ? `Bearer realm="gateway", error="invalid_token", error_description="${message.replaceAll('"', "'")}"`
      : 'Bearer realm="gateway"';
  }
}

/**
 * Resolves the token of an MCP request: a `gw_mcp_` endpoint token acts for the endpoint's user,
 * a `gw_sa_` key for its service account. Anything else, or a deleted, revoked or expired token,
 * is refused. Every request looks the token up (a deleted endpoint stops working at once, on
 * every instance); the use is recorded in `last_used_at` at most once a minute per token
 * ({@link recordTokenUse}).
 *
 * @example
 * const authenticate = createMcpAuthenticator(database);
 * const principal = await authenticate(token); // throws McpAuthError
 */
export function createMcpAuthenticator(database: GatewayDatabase) {
  const { db } = database;
  // Every MCP request runs one of these: built and compiled once.
  const endpointQuery = prepareQuery(db, ['hash'], (param) =>
    db
      .selectFrom('mcp_endpoints')
      .select(['id', 'user_id'])
      .where('token_hash', '=', param('hash')),
  );
  // Scalar subqueries rather than a join, which SQLite would prepare again on every run (see
  // prepareRoleLookups in policy/role-store.ts).
  const accountQuery = prepareQuery(db, ['hash'], (param) =>
    db
      .selectFrom('api_tokens')
      .select((eb) => [
        'api_tokens.id',
        'api_tokens.expires_at',
        'api_tokens.service_account_id as account',
        eb
          .selectFrom('service_accounts')
          .select('service_accounts.role_id')
          .whereRef('service_accounts.id', '=', 'api_tokens.service_account_id')
          .as('role_id'),
      ])
      .where('api_tokens.token_hash', '=', param('hash'))
      .where('api_tokens.kind', '=', 'service_account')
      .where('api_tokens.revoked_at', 'is', null),
  );

  const endpoint = async (token: string): Promise<McpPrincipal | undefined> => {
    const [row] = await endpointQuery({ hash: hashToken(token) });
    if (row === undefined) return undefined;
    recordTokenUse(db, 'mcp_endpoints', row.id);
    return { kind: 'user', userId: row.user_id, endpointId: row.id };
  };

  const serviceAccount = async (token: string): Promise<McpPrincipal | undefined> => {
    const now = new Date().toISOString();
    const [row] = await accountQuery({ hash: hashToken(token) });
    if (row === undefined || (row.expires_at !== null && row.expires_at <= now)) return undefined;
    const { account, role_id: roleId } = row;
    if (account === null || roleId === null) return undefined;
    recordTokenUse(db, 'api_tokens', row.id);
    return { kind: 'service_account', serviceAccountId: account, roleId };
  };

  return async function authenticate(token: string | undefined): Promise<McpPrincipal> {
    if (token === undefined || token === '') {
      throw new McpAuthError(
        'Send your MCP endpoint token as Authorization: Bearer <token>, or use the URL {base_url}/mcp/<token>',
        false,
      );
    }
    const principal = token.startsWith('gw_mcp_')
      ? await endpoint(token)
      : token.startsWith('gw_sa_')
        ? await serviceAccount(token)
        : undefined;
    if (principal === undefined) {
      throw new McpAuthError('The MCP token is unknown, deleted or revoked', true);
    }
    return principal;
  };
}
