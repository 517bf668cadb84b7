import { decryptOAuthToken, setTokenUtil } from 'better-auth/oauth2';
import type { GatewayAuth } from '../auth/index.js';
import type { GatewayDatabase } from '../db/index.js';
import type { ServerLogger } from '../http/logger.js';

/** A token this close to expiry is refreshed first, so it does not lapse mid-call. */
export const EXPIRY_SKEW_MS = 30_000;
/** How long an upstream refresh may take before the call gives up (and rolls back). */
const REFRESH_TIMEOUT_MS = 20_000;

/** What the OAuth source found for a user and provider. */
export type OAuthTokenResult =
  | { ok: true; token: string }
  /** `none`: no linked account; `expired`: expired without a refresh token; `refresh_failed`: the provider refused. */
  | { ok: false; reason: 'none' | 'expired' | 'refresh_failed' };

/** The user's OAuth access tokens, refreshed when they expire. */
export interface OAuthTokenSource {
  /**
   * A valid access token of `userId`'s account with better-auth provider `providerId` (the most
   * recently updated one if there are several), refreshing it first when it expires within
   * {@link EXPIRY_SKEW_MS}.
   */
  accessToken(userId: string, providerId: string): Promise<OAuthTokenResult>;
}

type AccountDate = Date | string | null;

function expired(expiresAt: AccountDate, now: number): boolean {
  if (expiresAt === null) return false;
  const at = expiresAt instanceof Date ? expiresAt.getTime() : new Date(expiresAt).getTime();
  return Number.isNaN(at) || at - now < EXPIRY_SKEW_MS;
}

/**
 * Reads OAuth tokens from better-auth's `account` table and refreshes them single-flight:
 *
 * - in one process, concurrent callers for one account share one refresh (a promise per
 *   account);
 * - across instances, the refresh runs inside a transaction that first locks the account row
 *   (`SELECT ... FOR UPDATE` on PostgreSQL; on SQLite a write that takes the database's write
 *   lock), re-reads it, and refreshes only if it is still expired. A second instance waits on
 *   the lock, then finds the fresh token. So two instances never spend the same refresh token.
 *
 * The new tokens (a rotated refresh token included) are committed before the access token is
 * returned: a crash after the upstream answer can lose at most that answer, never leave the
 * database holding a spent refresh token while a caller uses the new access token.
 *
 * @example
 * const source = createOAuthTokenSource(database, auth, logger);
 * const result = await source.accessToken(userId, 'github');
 * if (result.ok) fetch(url, { headers: { authorization: `Bearer ${result.token}` } });
 */
export function createOAuthTokenSource(
  database: GatewayDatabase,
  auth: GatewayAuth,
  logger: ServerLogger,
): OAuthTokenSource {
  const { db } = database;
  const inflight = new Map<string, Promise<string>>();

  const context = () => auth.instance.$context;

  async function refresh(accountId: string, providerId: string): Promise<string> {
    const ctx = await context();
    const provider = ctx.socialProviders.find((candidate) => candidate.id === providerId);
    if (!provider?.refreshAccessToken) {
      throw new Error(`provider ${providerId} is not configured or cannot refresh tokens`);
    }
    const refreshWith = provider.refreshAccessToken;
    return db.transaction().execute(async (trx) => {
      if (database.dialect === 'sqlite') {
        // A no-op write takes SQLite's write lock now, so another process's refresh waits here.
        await trx
          .updateTable('account')
          .set((eb) => ({ updatedAt: eb.ref('updatedAt') }))
          .where('id', '=', accountId)
          .execute();
      }
      const row = await trx
        .selectFrom('account')
        .select([
          'accessToken',
          'refreshToken',
          'accessTokenExpiresAt',
          'refreshTokenExpiresAt',
          'idToken',
        ])
        .where('id', '=', accountId)
        .$if(database.dialect === 'postgres', (q) => q.forUpdate())
        .executeTakeFirst();
      if (!row) throw new Error('the account was removed');
      if (row.accessToken !== null && !expired(row.accessTokenExpiresAt, Date.now())) {
        // Another caller (or instance) refreshed while this one waited for the lock.
        return decryptOAuthToken(row.accessToken, ctx);
      }
      if (row.refreshToken === null) throw new Error('the account has no refresh token');
      const tokens = await withTimeout(
        refreshWith(await decryptOAuthToken(row.refreshToken, ctx)),
        REFRESH_TIMEOUT_MS,
      );
      if (!tokens.accessToken) throw new Error('the provider answered without an access token');
      await trx
        .updateTable('account')
        .set({
          accessToken: (await setTokenUtil(tokens.accessToken, ctx)) ?? null,
          // A provider that rotates refresh tokens has just revoked the old one.
          refreshToken: tokens.refreshToken
            ? ((await setTokenUtil(tokens.refreshToken, ctx)) ?? row.refreshToken)
            : row.refreshToken,
          accessTokenExpiresAt: tokens.accessTokenExpiresAt ?? null,
          refreshTokenExpiresAt: tokens.refreshTokenExpiresAt ?? row.refreshTokenExpiresAt,
          idToken: tokens.idToken ?? row.idToken,
          updatedAt: new Date(),
        })
        .where('id', '=', accountId)
        .execute();
      return tokens.accessToken;
    });
  }

  return {
    async accessToken(userId, providerId) {
      const account = await db
        .selectFrom('account')
        .select(['id', 'accessToken', 'refreshToken', 'accessTokenExpiresAt'])
        .where('userId', '=', userId)
        .where('providerId', '=', providerId)
        .where('accessToken', 'is not', null)
        .orderBy('updatedAt', 'desc')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      if (!account?.accessToken) return { ok: false, reason: 'none' };
      if (!expired(account.accessTokenExpiresAt, Date.now())) {
        return { ok: true, token: await decryptOAuthToken(account.accessToken, await context()) };
      }
      if (account.refreshToken === null) return { ok: false, reason: 'expired' };

      let flight = inflight.get(account.id);
      if (flight === undefined) {
        flight = refresh(account.id, providerId).finally(() => inflight.delete(account.id));
        inflight.set(account.id, flight);
      }
      try {
        return { ok: true, token: await flight };
      } catch (error) {
        logger.warn('OAuth token refresh failed', {
          providerId,
          userId,
          error: error instanceof Error ? error.message : String(error),
        });
        return { ok: false, reason: 'refresh_failed' };
      }
    },
  };
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer from the provider within ${ms / 1000}s`)),
      ms,
    );
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
