import type { Kysely } from 'kysely';
import type { GatewayAuth } from '../auth/create-auth.js';
import type { DatabaseSchema, GatewayDatabase } from '../db/index.js';
import type { ServerLogger } from '../http/logger.js';
import {
  AccountRefresher,
  authContext,
  decrypt,
  expired,
  REFRESH_TIMEOUT_MS,
  type RefreshedAccount,
  RefreshRefusedError,
  withTimeout,
} from './account-refresh.js';
import { describeRefreshError, isMarkedForReconnect } from './reconnect-marks.js';

/** What the OAuth source found for a user and provider. */
export type OAuthTokenResult =
  | { ok: true; token: string }
  /** `none`: no linked account; `expired`: expired without a refresh token; `refresh_failed`: the provider refused. */
  /** `refused`: the provider refused the refresh token; the account needs a reconnect. */
  /** `unreachable`: the provider is down or slow; nothing expired for good, nothing is marked. */
  | { ok: false; reason: 'none' | 'expired' | 'refresh_failed' | 'refused' | 'unreachable' };

/** The user's OAuth access tokens, refreshed when they expire. */
export interface OAuthTokenSource {
  /**
   * A valid access token of `userId`'s account with better-auth provider `providerId` (the most
   * recently updated one if there are several), refreshing it first when it is about to expire
   * (within `EXPIRY_SKEW_MS`, or a quarter of a short-lived token's lifetime: `refreshMargin`).
   */
  accessToken(userId: string, providerId: string): Promise<OAuthTokenResult>;
}

/** Options of {@link createOAuthTokenSource}. */
export interface OAuthTokenSourceOptions {
  /** See {@link REFRESH_TIMEOUT_MS} (tests shorten it). */
  refreshTimeoutMs?: number;
  /** Told of every refresh sent to a provider once it settles, e.g. for metrics. */
  onRefresh?: (providerId: string, result: 'ok' | 'failed') => void;
}

/**
 * Reads OAuth tokens from better-auth's `account` table and refreshes them single-flight:
 *
 * - in one process, concurrent callers for one account share one refresh (a promise per
 *   account);
 * - across instances, on PostgreSQL the refresh runs inside a transaction that first locks the
 *   account row (`SELECT ... FOR UPDATE`), re-reads it, and refreshes only if it is still
 *   expired; a second instance waits on the lock, then finds the fresh token. On SQLite, where
 *   a transaction held through the provider's answer would stop every other query of the
 *   process, the account's refresh lease (`refreshUnderLease`, in `AccountRefresher`) plays the lock's part. So
 *   two instances never spend the same refresh token.
 *
 * The new tokens (a rotated refresh token included) are committed before the access token is
 * returned: a crash after the upstream answer can lose at most that answer, never leave the
 * database holding a spent refresh token while a caller uses the new access token.
 *
 * A caller waits at most `refreshTimeoutMs` (20 s) and then gets `unreachable`. If the
 * provider has not answered by then, the transaction is rolled back (freeing the row; on SQLite
 * the lease is kept until the answer is stored) but the request is not abandoned: when the
 * answer comes, its tokens are stored, provided the account still holds the refresh token that was sent (a
 * provider that rotates has spent it, so dropping the answer would leave the account unable to
 * refresh). Until then, callers in this process wait for that answer instead of sending the
 * refresh token again.
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
  options: OAuthTokenSourceOptions = {},
): OAuthTokenSource {
  const { db } = database;
  const timeoutMs = options.refreshTimeoutMs ?? REFRESH_TIMEOUT_MS;
  const refresher = new AccountRefresher(database, auth, logger, timeoutMs);
  const inflight = new Map<string, Promise<string>>();

  /** The account's refresh in flight in this process, started if there is none. */
  function flightFor(account: RefreshedAccount): Promise<string> {
    const { accountId, providerId } = account;
    const running = inflight.get(accountId);
    if (running !== undefined) return running;
    const started = refresher.refresh(account);
    const flight = started.then((done) => done.token);
    inflight.set(accountId, flight);
    // Settles after the callers may have stopped waiting (a late answer): handled here. A
    // flight that found the token already refreshed (callers that read the row before that
    // refresh was stored) sent nothing, so it is no refresh of the metric's.
    started.then(
      (done) => {
        inflight.delete(accountId);
        if (done.exchanged) options.onRefresh?.(providerId, 'ok');
      },
      () => {
        inflight.delete(accountId);
        options.onRefresh?.(providerId, 'failed');
      },
    );
    return flight;
  }

  /** The answer to a caller whose refresh failed, or was not over in time. */
  function failure(error: unknown, providerId: string, userId: string): OAuthTokenResult {
    const refused = error instanceof RefreshRefusedError;
    const described = describeRefreshError(error);
    if (!refused && described.unreachable) {
      // Every call fails alike during an outage: one line a minute, not one per call.
      auth.outages.report(providerId, described.message);
      return { ok: false, reason: 'unreachable' };
    }
    logger.warn(
      refused
        ? 'OAuth token refresh failed: refused by the provider, the account needs a reconnect'
        : 'OAuth token refresh failed',
      { providerId, userId, error: described.message },
    );
    return { ok: false, reason: refused ? 'refused' : 'refresh_failed' };
  }

  return {
    async accessToken(userId, providerId) {
      const account = await latestAccount(db, userId, providerId);
      if (!account?.accessToken) return { ok: false, reason: 'none' };
      if (!expired(account.accessTokenExpiresAt, Date.now(), account.updatedAt)) {
        return { ok: true, token: await decrypt(account.accessToken, await authContext(auth)) };
      }
      if (account.refreshToken === null) return { ok: false, reason: 'expired' };
      if (await isMarkedForReconnect(db, account.id, account.accessToken)) {
        return { ok: false, reason: 'refused' };
      }
      const flight = flightFor({ accountId: account.id, providerId, userId });
      try {
        return { ok: true, token: await withTimeout(flight, timeoutMs) };
      } catch (error) {
        return failure(error, providerId, userId);
      }
    },
  };
}

/** The user's most recently updated account with the provider that holds an access token. */
function latestAccount(db: Kysely<DatabaseSchema>, userId: string, providerId: string) {
  return db
    .selectFrom('account')
    .select(['id', 'accessToken', 'refreshToken', 'accessTokenExpiresAt', 'updatedAt'])
    .where('userId', '=', userId)
    .where('providerId', '=', providerId)
    .where('accessToken', 'is not', null)
    .orderBy('updatedAt', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}
