import type { Kysely } from 'kysely';
import { recordTokenUse } from '../auth/last-used.js';
import type { DatabaseSchema, GatewayDatabase } from '../db/index.js';
import { LookupCache } from '../db/lookup-cache.js';
import { prepareQuery } from '../db/prepared-query.js';
import { unmarkedWrite } from '../db/unmarked-write.js';
import { sessionState } from '../mcp/transport/shared-sessions/session-rows.js';
import {
  endpointByToken,
  prepareEndpointByToken,
  recordEndpointUse,
} from '../mcp-endpoints/token-query.js';
import { accessTokenByHash, prepareAccessTokenQuery } from '../mcp-oauth/token-query.js';
import { connectionTokenHash } from './connection-token-hash.js';
import type { StoredRole } from './role-store.js';

/** The owner of a bearer token, as stored. */
export type TokenOwner =
  | {
      kind: 'mcp';
      endpointId: string;
      userId: string;
      roleId: string;
      /** The role's row, read in the same query (null: no such role). */
      role: StoredRole | null;
      /** What the endpoint serves, as stored (`tools`, `mode`), read in the same query. */
      scope: { tools: string | null; mode: string };
      /** A `gw_oat_` access token of an `oauth` endpoint: its client, resource and expiry. */
      oauth?: { clientId: string; resource: string; scope: string; expiresAt: string };
    }
  | { kind: 'cli'; tokenId: string; userId: string; roleId: string; expiresAt: string | null }
  | {
      kind: 'service_account';
      tokenId: string;
      serviceAccountId: string;
      roleId: string;
      expiresAt: string | null;
    };

/** Why a token was refused, for the message (never the token). */
export type TokenRefusal = 'unknown' | 'expired';

/**
 * A 2025 session's row as the lookup of its request's token read it (PostgreSQL): whether it is
 * open, and its stored log level.
 */
export interface SessionState {
  id: string;
  open: boolean;
  logLevel: string | null;
}

/** What a lookup found. */
export type TokenLookup =
  | {
      found: true;
      owner: TokenOwner;
      /** The state of the session asked for, when the token's statement read it. */
      session?: SessionState;
    }
  | { found: false; reason: TokenRefusal; expiredAt?: string };

/** The CLI token or service-account key with the hash, and the role that applies to it. */
function prepareApiTokenQuery(db: Kysely<DatabaseSchema>) {
  return prepareQuery(
    db,
    ['hash'],
    (param) =>
      db
        .selectFrom('api_tokens')
        .select((eb) => [
          'api_tokens.id',
          'api_tokens.kind',
          'api_tokens.user_id',
          'api_tokens.expires_at',
          'api_tokens.service_account_id',
          eb
            .selectFrom('service_accounts')
            .select('service_accounts.role_id')
            .whereRef('service_accounts.id', '=', 'api_tokens.service_account_id')
            .as('account_role_id'),
          eb
            .selectFrom('user_roles')
            .select('user_roles.role_id')
            .whereRef('user_roles.user_id', '=', 'api_tokens.user_id')
            .as('user_role_id'),
        ])
        .where('api_tokens.token_hash', '=', param('hash'))
        .where('api_tokens.revoked_at', 'is', null),
    { batch: true },
  );
}

type EndpointRow = Awaited<ReturnType<ReturnType<typeof prepareEndpointByToken>>>[number];
type AccessTokenRow = Awaited<ReturnType<ReturnType<typeof prepareAccessTokenQuery>>>[number];
type ApiTokenRow = Awaited<ReturnType<ReturnType<typeof prepareApiTokenQuery>>>[number];

/** The role read beside a token's row: null when the role it names does not exist. */
function storedRole(
  roleId: string,
  row: { role_name: string | null; role_patterns: string | null },
): StoredRole | null {
  const { role_name: name, role_patterns: patterns } = row;
  return name !== null && patterns !== null ? { id: roleId, name, patterns } : null;
}

function endpointOwner(row: EndpointRow, defaultRoleId: string): TokenOwner {
  const roleId = row.role_id ?? defaultRoleId;
  return {
    kind: 'mcp',
    endpointId: row.id,
    userId: row.user_id,
    roleId,
    role: storedRole(roleId, row),
    scope: { tools: row.tools, mode: row.mode },
  };
}

function accessTokenOwner(row: AccessTokenRow, defaultRoleId: string): TokenOwner | undefined {
  if (row.user_id === null) return undefined;
  const roleId = row.role_id ?? defaultRoleId;
  return {
    kind: 'mcp',
    endpointId: row.endpoint_id,
    userId: row.user_id,
    roleId,
    role: storedRole(roleId, row),
    // The endpoint row exists (user_id came from it): its mode is never null.
    scope: { tools: row.tools, mode: row.mode ?? 'tools' },
    oauth: {
      clientId: row.client_id,
      resource: row.resource,
      scope: row.scope,
      expiresAt: row.expires_at,
    },
  };
}

function apiTokenOwner(row: ApiTokenRow, defaultRoleId: string): TokenOwner | undefined {
  if (row.kind === 'service_account') {
    if (row.service_account_id === null || row.account_role_id === null) return undefined;
    return {
      kind: 'service_account',
      tokenId: row.id,
      serviceAccountId: row.service_account_id,
      roleId: row.account_role_id,
      expiresAt: row.expires_at,
    };
  }
  return {
    kind: 'cli',
    tokenId: row.id,
    userId: row.user_id,
    roleId: row.user_role_id ?? defaultRoleId,
    expiresAt: row.expires_at,
  };
}

/**
 * Every bearer token the gateway issues (`gw_mcp_` endpoint tokens, `gw_oat_` OAuth access tokens
 * of `oauth` endpoints, `gw_cli_` tokens, `gw_sa_` service account keys), found by its SHA-256
 * hash in one place. A token's owner, and the role that applies to it, is read once and kept
 * while the database is unchanged ({@link LookupCache}): a deleted endpoint, a revoked key or a
 * new role assignment applies to the next request on every instance. Expiry is checked on every
 * use, so a kept token expires on time. A use is recorded in `last_used_at` at most once a minute
 * per token.
 *
 * @example
 * const tokens = createTokenRepository(database, 'member');
 * const lookup = await tokens.find(token);
 */
export function createTokenRepository(database: GatewayDatabase, defaultRoleId: string) {
  const { db } = database;
  // Built and compiled once: every MCP call runs one. The endpoint's and the access token's
  // lookups belong to the owners of their tables, which read the role in the same statement.
  const endpointQuery = prepareEndpointByToken(db, defaultRoleId);
  const oauthTokenQuery = prepareAccessTokenQuery(db, defaultRoleId);
  const apiTokenQuery = prepareApiTokenQuery(db);
  const owners = new LookupCache<TokenOwner>(database);

  // PostgreSQL, where every lookup reads: a 2025 session's request reads its session's row in
  // its token's statement (MCP tokens; any other asks the session's owner itself), and the
  // lookups of requests read in one turn go as one statement (db/batched-query.ts).
  const withSession =
    database.dialect === 'postgres' ? prepareWithSession(db, defaultRoleId) : undefined;

  /** The owner of `token`, and the state of session `sessionId` when read beside it. */
  const read = async (
    token: string,
    hash: string,
    sessionId: string | undefined,
  ): Promise<{ owner: TokenOwner | undefined; session?: SessionState }> => {
    // On PostgreSQL every MCP token is read by the statement with the session (none: null), so
    // that the lookups of one turn, with a session or not, batch into one statement.
    const session = sessionId ?? null;
    if (token.startsWith('gw_mcp_')) {
      const [row] = await (withSession === undefined
        ? endpointQuery({ hash })
        : withSession.endpoint({ hash, session }));
      return {
        owner: row === undefined ? undefined : endpointOwner(row, defaultRoleId),
        ...sessionOf(sessionId, row),
      };
    }
    if (token.startsWith('gw_oat_')) {
      const [row] = await (withSession === undefined
        ? oauthTokenQuery({ hash })
        : withSession.oauth({ hash, session }));
      return {
        owner: row === undefined ? undefined : accessTokenOwner(row, defaultRoleId),
        ...sessionOf(sessionId, row),
      };
    }
    const [row] = await apiTokenQuery({ hash });
    return { owner: row === undefined ? undefined : apiTokenOwner(row, defaultRoleId) };
  };

  /**
   * The owner of `token`, or why there is none, as it is when the owner is kept (no turn of the
   * event loop for it: the MCP endpoint's calls, issue 37). Only the prefixes the gateway issues
   * are looked up; anything else is unknown without a query. `connection`, the request's socket
   * when it came from the network: its last token's hash is reused ({@link connectionTokenHash}).
   */
  const findNow = (
    token: string,
    sessionId?: string,
    connection?: object | null,
  ): TokenLookup | Promise<TokenLookup> => {
    if (!/^gw_(?:mcp|cli|sa|oat)_/.test(token)) return { found: false, reason: 'unknown' };
    const hash = connectionTokenHash(connection, token);
    let session: SessionState | undefined;
    const owner = owners.getNow(hash, async () => {
      const found = await read(token, hash, sessionId);
      session = found.session;
      return found.owner;
    });
    if (owner instanceof Promise) return owner.then((stored) => lookupOf(db, stored, session));
    return lookupOf(db, owner, session);
  };

  return {
    /** The owner of `token`, or why there is none (see `findNow`). */
    find(token: string, sessionId?: string): Promise<TokenLookup> {
      const lookup = findNow(token, sessionId);
      return lookup instanceof Promise ? lookup : Promise.resolve(lookup);
    },
    findNow,
  };
}

/** The lookup of a token whose owner is `owner` (none: unknown), its use recorded. */
function lookupOf(
  db: Kysely<DatabaseSchema>,
  owner: TokenOwner | undefined,
  session: SessionState | undefined,
): TokenLookup {
  if (owner === undefined) return { found: false, reason: 'unknown' };
  const expiresAt = owner.kind === 'mcp' ? owner.oauth?.expiresAt : owner.expiresAt;
  if (expiresAt !== undefined && expiresAt !== null) {
    if (expiresAt <= new Date().toISOString()) {
      return { found: false, reason: 'expired', expiredAt: expiresAt };
    }
  }
  if (owner.kind === 'mcp') recordEndpointUse(db, owner.endpointId);
  else recordApiTokenUse(db, owner.tokenId);
  return session === undefined ? { found: true, owner } : { found: true, owner, session };
}

/**
 * The MCP tokens' lookups with the state of a 2025 session (`session`, its id) read in the same
 * statement: its row's owner selects it beside the token's row.
 */
function prepareWithSession(db: Kysely<DatabaseSchema>, defaultRoleId: string) {
  return {
    endpoint: prepareQuery(
      db,
      ['hash', 'session'],
      (param) =>
        db
          .selectFrom(endpointByToken(db, defaultRoleId, param('hash')).as('token'))
          .selectAll('token')
          .select(sessionState(param('session'))),
      { batch: true },
    ),
    oauth: prepareQuery(
      db,
      ['hash', 'session'],
      (param) =>
        db
          .selectFrom(accessTokenByHash(db, defaultRoleId, param('hash')).as('token'))
          .selectAll('token')
          .select(sessionState(param('session'))),
      { batch: true },
    ),
  };
}

/** The session state a lookup's row carries, when it was read with one. */
function sessionOf(
  sessionId: string | undefined,
  row: object | undefined,
): { session?: SessionState } {
  if (sessionId === undefined || row === undefined || !('session_open' in row)) return {};
  const level = 'session_log_level' in row ? row.session_log_level : null;
  return {
    session: {
      id: sessionId,
      // PostgreSQL reads a boolean back (SQLite would say 1).
      open: row.session_open === true || row.session_open === 1,
      logLevel: typeof level === 'string' ? level : null,
    },
  };
}

/** Records a use of the CLI token or service-account key `id` (see recordTokenUse). */
function recordApiTokenUse(db: Kysely<DatabaseSchema>, id: string): void {
  recordTokenUse(db, id, (lastUsedAt) =>
    unmarkedWrite(
      db.updateTable('api_tokens').set({ last_used_at: lastUsedAt }).where('id', '=', id),
    ).execute(),
  );
}

/** The bearer token repository of a gateway. */
export type TokenRepository = ReturnType<typeof createTokenRepository>;
