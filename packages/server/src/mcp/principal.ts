import { recordTokenUse } from '../auth/last-used.js';
import type { GatewayDatabase } from '../db/index.js';
import { LookupCache } from '../db/lookup-cache.js';
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
 * is refused. A token's owner is read once and kept while the database is unchanged
 * ({@link LookupCache}): a deleted endpoint or revoked key stops working at once, on every
 * instance. The use is recorded in `last_used_at` at most once a minute per token
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

  const endpoints = new LookupCache<Readonly<McpPrincipal & { kind: 'user' }>>(database);
  const accounts = new LookupCache<
    Readonly<{ tokenId: string; expiresAt: string | null; principal: McpPrincipal }>
  >(database);

  const endpoint = async (token: string): Promise<McpPrincipal | undefined> => {
    const hash = hashToken(token);
    const principal = await endpoints.get(hash, async () => {
      const [row] = await endpointQuery({ hash });
      return row && { kind: 'user', userId: row.user_id, endpointId: row.id };
    });
    if (principal !== undefined) recordTokenUse(db, 'mcp_endpoints', principal.endpointId);
    return principal;
  };

  const serviceAccount = async (token: string): Promise<McpPrincipal | undefined> => {
    const hash = hashToken(token);
    const found = await accounts.get(hash, async () => {
      const [row] = await accountQuery({ hash });
      if (row === undefined || row.account === null || row.role_id === null) return undefined;
      return {
        tokenId: row.id,
        expiresAt: row.expires_at,
        principal: { kind: 'service_account', serviceAccountId: row.account, roleId: row.role_id },
      };
    });
    // Expiry is checked on every use: a kept key expires on time.
    if (found === undefined) return undefined;
    if (found.expiresAt !== null && found.expiresAt <= new Date().toISOString()) return undefined;
    recordTokenUse(db, 'api_tokens', found.tokenId);
    return found.principal;
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
