import type { Kysely } from 'kysely';
import { verifyPkce } from '../cli-auth/index.js';
import type { DatabaseSchema } from '../db/index.js';
import { createOAuthEndpoint, deleteOAuthEndpoint } from '../mcp-endpoints/index.js';
import { generateToken, hashToken } from '../secrets/index.js';
import { OAuthError } from './errors.js';

/** How long an authorization code may be redeemed. */
export const CODE_TTL_MS = 120_000;

/** What a code is issued for, from a consent. */
export interface CodeRequest {
  clientId: string;
  userId: string;
  redirectUri: string;
  codeChallenge: string;
  resource: string;
  scope: string;
}

/** The answer of the token endpoint (RFC 6749 section 5.1). */
export interface TokenAnswer {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/** Token lifetimes. */
export interface Lifetimes {
  accessTokenSeconds: number;
  refreshTokenDays: number;
}

/**
 * Issues a one-time authorization code (`gw_oac_`), stored by its SHA-256.
 *
 * @example
 * const code = await issueCode(db, { clientId, userId, redirectUri, codeChallenge, resource, scope });
 */
export async function issueCode(
  db: Kysely<DatabaseSchema>,
  request: CodeRequest,
  now = new Date(),
): Promise<string> {
  const code = generateToken('oac');
  // Codes that can no longer be redeemed or replayed go with each new one.
  await db.deleteFrom('mcp_oauth_codes').where('expires_at', '<', now.toISOString()).execute();
  await db
    .insertInto('mcp_oauth_codes')
    .values({
      code_hash: hashToken(code),
      client_id: request.clientId,
      user_id: request.userId,
      redirect_uri: request.redirectUri,
      code_challenge: request.codeChallenge,
      resource: request.resource,
      scope: request.scope,
      expires_at: new Date(now.getTime() + CODE_TTL_MS).toISOString(),
      endpoint_id: null,
    })
    .execute();
  return code;
}

/** A grant's access and refresh tokens, stored by their SHA-256. */
async function issueTokens(
  trx: Kysely<DatabaseSchema>,
  grant: { endpointId: string; clientId: string; resource: string; scope: string },
  lifetimes: Lifetimes,
  now: Date,
): Promise<TokenAnswer> {
  const access = generateToken('oat');
  const refresh = generateToken('ort');
  const common = {
    endpoint_id: grant.endpointId,
    client_id: grant.clientId,
    resource: grant.resource,
    scope: grant.scope,
    created_at: now.toISOString(),
    rotated_at: null,
  };
  // Expired tokens of the grant are of no use to anyone, rotated refresh tokens included.
  await trx
    .deleteFrom('mcp_oauth_tokens')
    .where('endpoint_id', '=', grant.endpointId)
    .where('expires_at', '<', now.toISOString())
    .execute();
  await trx
    .insertInto('mcp_oauth_tokens')
    .values([
      {
        ...common,
        token_hash: hashToken(access),
        kind: 'access',
        expires_at: new Date(now.getTime() + lifetimes.accessTokenSeconds * 1000).toISOString(),
      },
      {
        ...common,
        token_hash: hashToken(refresh),
        kind: 'refresh',
        expires_at: new Date(
          now.getTime() + lifetimes.refreshTokenDays * 24 * 60 * 60 * 1000,
        ).toISOString(),
      },
    ])
    .execute();
  return {
    access_token: access,
    token_type: 'Bearer',
    expires_in: lifetimes.accessTokenSeconds,
    refresh_token: refresh,
    scope: grant.scope,
  };
}

/** Revokes a grant: deletes its endpoint, and with it (cascade) every token it has. */
async function revokeGrant(db: Kysely<DatabaseSchema>, endpointId: string): Promise<void> {
  await deleteOAuthEndpoint(db, endpointId);
}

/**
 * Redeems an authorization code (RFC 6749 section 4.1.3 with PKCE, RFC 7636): the code must be
 * unused and unexpired, issued to `clientId` for `redirectUri`, and `verifier` must match its S256
 * challenge; `resource`, when sent, must be the one it was issued for (RFC 8707). The grant
 * becomes an MCP endpoint of kind `oauth` named after the client. A code presented again revokes
 * what it issued (RFC 6749 section 4.1.2). A code is spent by any attempt, right or wrong.
 *
 * @throws OAuthError `invalid_grant` or `invalid_target`.
 */
export async function redeemCode(
  db: Kysely<DatabaseSchema>,
  input: {
    code: string;
    clientId: string;
    clientName: string;
    redirectUri: string | undefined;
    verifier: string | undefined;
    resource: string | undefined;
  },
  lifetimes: Lifetimes,
  now = new Date(),
): Promise<TokenAnswer> {
  const codeHash = hashToken(input.code);
  const row = await db
    .selectFrom('mcp_oauth_codes')
    .selectAll()
    .where('code_hash', '=', codeHash)
    .executeTakeFirst();
  if (row === undefined || row.expires_at <= now.toISOString()) {
    throw new OAuthError('invalid_grant', 'The authorization code is unknown or expired');
  }
  if (row.endpoint_id !== null) {
    await revokeGrant(db, row.endpoint_id);
    throw new OAuthError(
      'invalid_grant',
      'The authorization code was already used; the access it gave is revoked',
    );
  }
  const problem =
    row.client_id !== input.clientId
      ? 'The authorization code was issued to another client'
      : input.redirectUri !== row.redirect_uri
        ? 'redirect_uri does not match the one of the authorization request'
        : input.verifier === undefined
          ? 'code_verifier is required (PKCE)'
          : !verifyPkce(input.verifier, row.code_challenge)
            ? 'code_verifier does not match the code challenge'
            : undefined;
  const wrongTarget = input.resource !== undefined && input.resource !== row.resource;
  if (problem !== undefined || wrongTarget) {
    await db.deleteFrom('mcp_oauth_codes').where('code_hash', '=', codeHash).execute();
    if (problem !== undefined) throw new OAuthError('invalid_grant', problem);
    throw new OAuthError('invalid_target', 'resource is not the one the code was issued for');
  }
  return db.transaction().execute(async (trx) => {
    const endpointId = await createOAuthEndpoint(trx, {
      userId: row.user_id,
      clientName: input.clientName,
      clientId: input.clientId,
      now,
    });
    if (endpointId === undefined) {
      throw new OAuthError('invalid_grant', 'The user of this authorization code is gone');
    }
    // Spent in the same transaction, and only if still unspent: of two redemptions racing on any
    // instance, one wins.
    const spent = await trx
      .updateTable('mcp_oauth_codes')
      .set({ endpoint_id: endpointId })
      .where('code_hash', '=', codeHash)
      .where('endpoint_id', 'is', null)
      .executeTakeFirst();
    if (Number(spent.numUpdatedRows) !== 1) {
      throw new OAuthError('invalid_grant', 'The authorization code was already used');
    }
    return issueTokens(
      trx,
      { endpointId, clientId: input.clientId, resource: row.resource, scope: row.scope },
      lifetimes,
      now,
    );
  });
}

/**
 * Exchanges a refresh token for a new access token and a new refresh token (rotation, OAuth 2.1
 * section 4.3.1). A refresh token presented after it was exchanged revokes the whole grant: its
 * endpoint and every token of it. `resource`, when sent, must be the grant's; `scope`, when sent,
 * may only narrow it.
 *
 * @throws OAuthError `invalid_grant`, `invalid_target` or `invalid_scope`.
 */
export async function refreshGrant(
  db: Kysely<DatabaseSchema>,
  input: {
    refreshToken: string;
    clientId: string;
    resource: string | undefined;
    scope: string | undefined;
  },
  lifetimes: Lifetimes,
  now = new Date(),
): Promise<TokenAnswer> {
  const tokenHash = hashToken(input.refreshToken);
  const row = await db
    .selectFrom('mcp_oauth_tokens')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('kind', '=', 'refresh')
    .executeTakeFirst();
  if (row === undefined || row.expires_at <= now.toISOString()) {
    throw new OAuthError('invalid_grant', 'The refresh token is unknown, expired or revoked');
  }
  if (row.client_id !== input.clientId) {
    throw new OAuthError('invalid_grant', 'The refresh token was issued to another client');
  }
  if (row.rotated_at !== null) {
    await revokeGrant(db, row.endpoint_id);
    throw new OAuthError(
      'invalid_grant',
      'The refresh token was already used; the whole grant is revoked. Sign in again',
    );
  }
  if (input.resource !== undefined && input.resource !== row.resource) {
    throw new OAuthError('invalid_target', 'resource is not the one this grant is for');
  }
  const granted = row.scope.split(' ');
  const scope = input.scope ?? row.scope;
  if (!scope.split(' ').every((one) => granted.includes(one))) {
    throw new OAuthError('invalid_scope', 'scope asks for more than was granted');
  }
  const rotated = await db.transaction().execute(async (trx) => {
    const marked = await trx
      .updateTable('mcp_oauth_tokens')
      .set({ rotated_at: now.toISOString() })
      .where('token_hash', '=', tokenHash)
      .where('rotated_at', 'is', null)
      .executeTakeFirst();
    if (Number(marked.numUpdatedRows) !== 1) return undefined;
    return issueTokens(
      trx,
      { endpointId: row.endpoint_id, clientId: row.client_id, resource: row.resource, scope },
      lifetimes,
      now,
    );
  });
  if (rotated === undefined) {
    // Another exchange of the same token won the race: that is reuse too.
    await revokeGrant(db, row.endpoint_id);
    throw new OAuthError(
      'invalid_grant',
      'The refresh token was already used; the grant is revoked',
    );
  }
  return rotated;
}

/**
 * Revokes a token (RFC 7009) issued to `clientId`: an access token alone, a refresh token with its
 * whole grant. Unknown tokens, and those of other clients, are ignored (the answer is the same).
 */
export async function revokeToken(
  db: Kysely<DatabaseSchema>,
  token: string,
  clientId: string,
): Promise<void> {
  const row = await db
    .selectFrom('mcp_oauth_tokens')
    .select(['kind', 'endpoint_id', 'client_id'])
    .where('token_hash', '=', hashToken(token))
    .executeTakeFirst();
  if (row === undefined || row.client_id !== clientId) return;
  if (row.kind === 'refresh') await revokeGrant(db, row.endpoint_id);
  else await db.deleteFrom('mcp_oauth_tokens').where('token_hash', '=', hashToken(token)).execute();
}
