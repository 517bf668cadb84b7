import { cliTokenExpired } from '../cli-auth/token-expiry.js';
import type { GatewayDatabase } from '../db/index.js';
import { HttpError } from '../http/errors.js';
import { hashToken, safeEqual } from '../secrets/index.js';
import type { Caller } from './caller.js';
import { recordTokenUse } from './last-used.js';

/** Finds the signed-in user of a request from its session cookie (better-auth), if any. */
export type SessionResolver = (headers: Headers) => Promise<{ userId: string } | null>;

export interface CallerResolverOptions {
  database: GatewayDatabase;
  serviceApiSecret: string | undefined;
  sessionResolver?: SessionResolver;
  /** Role id that makes a user an admin. */
  adminRoleId?: string;
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const invalidToken = () =>
  new HttpError('unauthorized', 'The bearer token is invalid, expired or revoked');

/**
 * Resolves who is calling from the Authorization header (the service secret, a `gw_cli_` token or
 * a `gw_sa_` key) or, without one, the session cookie. A bearer token that matches nothing is a
 * 401, never a silent fall-back to anonymous.
 */
export function createCallerResolver(options: CallerResolverOptions) {
  const { db } = options.database;
  const adminRoleId = options.adminRoleId ?? 'admin';

  const isAdmin = async (userId: string) => {
    const row = await db
      .selectFrom('user_roles')
      .select('role_id')
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row?.role_id === adminRoleId;
  };

  const fromApiToken = async (token: string): Promise<Caller> => {
    const now = new Date().toISOString();
    const row = await db
      .selectFrom('api_tokens')
      .leftJoin('service_accounts', 'service_accounts.id', 'api_tokens.service_account_id')
      .select([
        'api_tokens.id',
        'api_tokens.kind',
        'api_tokens.user_id',
        'api_tokens.expires_at',
        'api_tokens.revoked_at',
        'api_tokens.service_account_id',
        'service_accounts.role_id',
      ])
      .where('api_tokens.token_hash', '=', hashToken(token))
      .executeTakeFirst();
    if (!row || row.revoked_at !== null) throw invalidToken();
    if (row.expires_at !== null && row.expires_at <= now) {
      throw row.kind === 'cli' ? cliTokenExpired(row.expires_at) : invalidToken();
    }
    recordTokenUse(db, 'api_tokens', row.id);
    if (row.kind === 'service_account') {
      if (row.service_account_id === null || row.role_id === null) throw invalidToken();
      return {
        kind: 'service_account',
        serviceAccountId: row.service_account_id,
        roleId: row.role_id,
      };
    }
    return {
      kind: 'user',
      userId: row.user_id,
      isAdmin: await isAdmin(row.user_id),
      via: 'cli_token',
    };
  };

  return async function resolveCaller(headers: Headers): Promise<Caller> {
    const authorization = headers.get('authorization');
    if (authorization !== null) {
      const token = BEARER.exec(authorization)?.[1];
      if (token === undefined) {
        throw new HttpError('unauthorized', 'Send the credential as Authorization: Bearer <token>');
      }
      if (options.serviceApiSecret !== undefined && safeEqual(token, options.serviceApiSecret)) {
        return { kind: 'service' };
      }
      if (token.startsWith('gw_cli_') || token.startsWith('gw_sa_')) return fromApiToken(token);
      throw invalidToken();
    }
    const session = await options.sessionResolver?.(headers);
    if (session) {
      return {
        kind: 'user',
        userId: session.userId,
        isAdmin: await isAdmin(session.userId),
        via: 'session',
      };
    }
    return { kind: 'anonymous' };
  };
}
