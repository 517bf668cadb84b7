import type { OAuth2Tokens } from 'better-auth/oauth2';
import type { Kysely } from 'kysely';
import type { GatewayAuth } from '../auth/create-auth.js';
import type { DatabaseSchema, GatewayDatabase } from '../db/index.js';
import { refreshUnderLease } from '../db/refresh-lease.js';
import type { ServerLogger } from '../http/logger.js';
import { describeRefreshError, isMarkedForReconnect, markReconnect } from './reconnect-marks.js';

/**
 * A token this close to expiry is refreshed first, so it does not lapse mid-call; a short-lived
 * token uses a quarter of its lifetime instead (see {@link refreshMargin}).
 */
export const EXPIRY_SKEW_MS = 30_000;
/** How long a caller waits for a refresh, and the provider's answer is waited for under the lock. */
export const REFRESH_TIMEOUT_MS = 20_000;
/** A refresh lease (SQLite) outlives the refresh's own time limit by this much. */
const LEASE_MS = 5_000;

type AuthContext = Awaited<Awaited<ReturnType<GatewayAuth['instance']>>['$context']>;

/** Decrypts a stored OAuth token; better-auth's helpers load with the first read, not at start. */
async function decrypt(value: string, ctx: AuthContext): Promise<string> {
  const { decryptOAuthToken } = await import('better-auth/oauth2');
  return decryptOAuthToken(value, ctx);
}

/** Encrypts an OAuth token for storage as better-auth does (`encryptOAuthTokens`). */
async function encrypt(value: string | undefined, ctx: AuthContext) {
  const { setTokenUtil } = await import('better-auth/oauth2');
  return setTokenUtil(value, ctx);
}

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
   * recently updated one if there are several), refreshing it first when it expires within
   * {@link EXPIRY_SKEW_MS}.
   */
  accessToken(userId: string, providerId: string): Promise<OAuthTokenResult>;
}

type AccountDate = Date | string | null;

const timeOf = (date: Date | string) =>
  date instanceof Date ? date.getTime() : new Date(date).getTime();

/**
 * How long before expiry a token is refreshed: {@link EXPIRY_SKEW_MS}, or a quarter of its
 * lifetime (expiry minus when it was stored) when that is shorter. A fixed 30 s margin made every
 * call refresh a token living 30 s or less.
 *
 * @example
 * refreshMargin(expiresAt, storedAt); // 2_500 for a 10 s token, 30_000 for an hour's
 */
export function refreshMargin(expiresAt: number, storedAt: number | undefined): number {
  if (storedAt === undefined || Number.isNaN(storedAt) || storedAt >= expiresAt) {
    return EXPIRY_SKEW_MS;
  }
  return Math.min(EXPIRY_SKEW_MS, (expiresAt - storedAt) / 4);
}

function expired(expiresAt: AccountDate, now: number, storedAt?: AccountDate): boolean {
  if (expiresAt === null) return false;
  const at = timeOf(expiresAt);
  if (Number.isNaN(at)) return true;
  const margin = refreshMargin(at, storedAt ? timeOf(storedAt) : undefined);
  return at - now < margin;
}

/** The provider refused the refresh token (`invalid_grant`); the account is marked. */
class RefreshRefusedError extends Error {
  constructor(
    message: string,
    /** The account's access token as stored when the refresh was refused. */
    readonly storedAccessToken: string,
  ) {
    super(message);
  }
}

/** Options of {@link createOAuthTokenSource}. */
export interface OAuthTokenSourceOptions {
  /** See {@link REFRESH_TIMEOUT_MS} (tests shorten it). */
  refreshTimeoutMs?: number;
  /** Told of every refresh sent to a provider once it settles, e.g. for metrics. */
  onRefresh?: (providerId: string, result: 'ok' | 'failed') => void;
}

/** The provider answered a refresh with an outage status (5xx, 429). */
class RefreshOutageError extends Error {
  override readonly name = 'RefreshOutageError';
}

/** The provider did not answer a refresh in time. */
class RefreshTimeoutError extends Error {
  override readonly name = 'TimeoutError';
}

type StoredAccount = {
  refreshToken: string | null;
  refreshTokenExpiresAt: AccountDate;
  idToken: string | null;
};

/** The account columns a refresh reads. */
type AccountRow = StoredAccount & {
  accessToken: string | null;
  accessTokenExpiresAt: AccountDate;
  updatedAt: AccountDate;
};

/**
 * Reads OAuth tokens from better-auth's `account` table and refreshes them single-flight:
 *
 * - in one process, concurrent callers for one account share one refresh (a promise per
 *   account);
 * - across instances, on PostgreSQL the refresh runs inside a transaction that first locks the
 *   account row (`SELECT ... FOR UPDATE`), re-reads it, and refreshes only if it is still
 *   expired; a second instance waits on the lock, then finds the fresh token. On SQLite, where
 *   a transaction held through the provider's answer would stop every other query of the
 *   process, the account's refresh lease ({@link refreshUnderLease}) plays the lock's part. So
 *   two instances never spend the same refresh token.
 *
 * The new tokens (a rotated refresh token included) are committed before the access token is
 * returned: a crash after the upstream answer can lose at most that answer, never leave the
 * database holding a spent refresh token while a caller uses the new access token.
 *
 * A caller waits at most `refreshTimeoutMs` (20 s) and then gets `refresh_failed`. If the
 * provider has not answered by then, the transaction is rolled back (freeing the row; on SQLite
 * the lease is kept until the answer is stored) but the request is not abandoned: when the answer comes, its
 * tokens are stored, provided the account still holds the refresh token that was sent (a
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
  const inflight = new Map<string, Promise<string>>();

  const context = async () => (await auth.instance()).$context;

  /** The account columns to write for `tokens`, keeping what the provider did not send again. */
  async function columns(tokens: OAuth2Tokens, row: StoredAccount) {
    const ctx = await context();
    return {
      accessToken: (await encrypt(tokens.accessToken, ctx)) ?? null,
      // A provider that rotates refresh tokens has just revoked the old one.
      refreshToken: tokens.refreshToken
        ? ((await encrypt(tokens.refreshToken, ctx)) ?? row.refreshToken)
        : row.refreshToken,
      accessTokenExpiresAt: tokens.accessTokenExpiresAt ?? null,
      refreshTokenExpiresAt: tokens.refreshTokenExpiresAt ?? row.refreshTokenExpiresAt,
      idToken: tokens.idToken ?? row.idToken,
      updatedAt: new Date(),
    };
  }

  /**
   * Stores the answer to a refresh that outlived its transaction, if the account still holds
   * the refresh token sent (compared as stored, encrypted), and resolves to its access token.
   */
  async function storeLateAnswer(
    accountId: string,
    providerId: string,
    answer: Promise<OAuth2Tokens>,
    row: StoredAccount,
  ): Promise<string> {
    const tokens = await answer;
    if (!tokens.accessToken) throw new Error('the provider answered without an access token');
    const result = await db
      .updateTable('account')
      .set(await columns(tokens, row))
      .where('id', '=', accountId)
      .where('refreshToken', '=', row.refreshToken)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) {
      throw new Error(
        'the account changed while the provider was answering; its answer was dropped',
      );
    }
    logger.info('a late OAuth refresh answer was stored', { providerId, accountId });
    return tokens.accessToken;
  }

  const readAccount = (from: Kysely<DatabaseSchema>, accountId: string) =>
    from
      .selectFrom('account')
      .select([
        'accessToken',
        'refreshToken',
        'accessTokenExpiresAt',
        'refreshTokenExpiresAt',
        'idToken',
        'updatedAt',
      ])
      .where('id', '=', accountId);

  /** The account's access token when it needs no refresh (another caller refreshed it). */
  async function freshToken(row: AccountRow) {
    if (row.accessToken === null || expired(row.accessTokenExpiresAt, Date.now(), row.updatedAt)) {
      return undefined;
    }
    return decrypt(row.accessToken, await context());
  }

  /**
   * Sends `row`'s refresh token to the provider and stores the answer through `write`; the new
   * access token. An answer slower than the time limit is handed to `onLate` before this throws.
   */
  async function exchange(
    write: Kysely<DatabaseSchema>,
    accountId: string,
    refreshWith: (refreshToken: string) => Promise<OAuth2Tokens>,
    row: AccountRow,
    onLate: (answer: Promise<OAuth2Tokens>) => void,
  ): Promise<string> {
    if (row.refreshToken === null) throw new Error('the account has no refresh token');
    const answer = refreshWith(await decrypt(row.refreshToken, await context()));
    let tokens: OAuth2Tokens;
    try {
      tokens = await withTimeout(answer, timeoutMs);
    } catch (error) {
      if (error instanceof RefreshTimeoutError) onLate(answer);
      const described = describeRefreshError(error);
      if (described.refused && row.accessToken !== null) {
        throw new RefreshRefusedError(described.message, row.accessToken);
      }
      if (error instanceof Error) throw error;
      // The provider's error body: kept as an outage when it is one (a 503, a 429).
      if (described.unreachable) throw new RefreshOutageError(described.message);
      throw new Error(described.message);
    }
    if (!tokens.accessToken) throw new Error('the provider answered without an access token');
    await write
      .updateTable('account')
      .set(await columns(tokens, row))
      .where('id', '=', accountId)
      .execute();
    return tokens.accessToken;
  }

  /**
   * The account's access token after a refresh, and whether this flight sent the refresh token
   * (`exchanged`) or found the token refreshed by another caller meanwhile.
   */
  async function refresh(
    accountId: string,
    providerId: string,
    userId: string,
  ): Promise<{ token: string; exchanged: boolean }> {
    const ctx = await context();
    const provider = ctx.socialProviders.find((candidate) => candidate.id === providerId);
    if (!provider?.refreshAccessToken) {
      throw new Error(`provider ${providerId} is not configured or cannot refresh tokens`);
    }
    const refreshWith = provider.refreshAccessToken;
    // The storing of an answer that outlived the time limit: it may have spent the refresh token.
    let late: Promise<string> | undefined;
    const storeLate = (answer: Promise<OAuth2Tokens>, row: StoredAccount) => {
      late = storeLateAnswer(accountId, providerId, answer, row);
      return late;
    };
    try {
      if (database.dialect === 'postgres') {
        // The account's row stays locked until the answer is stored: another instance waits on
        // it, then finds the fresh token.
        return await db.transaction().execute(async (trx) => {
          const row = await readAccount(trx, accountId).forUpdate().executeTakeFirst();
          if (!row) throw new Error('the account was removed');
          const fresh = await freshToken(row);
          if (fresh !== undefined) return { token: fresh, exchanged: false };
          const token = await exchange(trx, accountId, refreshWith, row, (answer) =>
            storeLate(answer, row),
          );
          return { token, exchanged: true };
        });
      }
      let seen: AccountRow | undefined;
      let exchanged = false;
      const token = await refreshUnderLease(db, `account:${accountId}`, {
        holdMs: timeoutMs + LEASE_MS,
        current: async () => {
          const row = await readAccount(db, accountId).executeTakeFirst();
          if (!row) throw new Error('the account was removed');
          seen = row;
          return freshToken(row);
        },
        refresh: async (hold) => {
          const row = seen;
          if (row === undefined) throw new Error('the account was not read');
          exchanged = true;
          return exchange(db, accountId, refreshWith, row, (answer) => {
            // Until it is stored, no other process may send the refresh token again.
            hold(storeLate(answer, row));
          });
        },
      });
      return { token, exchanged };
    } catch (error) {
      if (error instanceof RefreshRefusedError) {
        // Outside the rolled-back transaction. That refresh token is dead: it is never sent
        // again, and the user is asked to reconnect.
        await markReconnect(
          db,
          { id: accountId, userId, providerId, accessToken: error.storedAccessToken },
          'invalid_grant',
        );
      }
      if (late === undefined) throw error;
      // The database is free again; the provider may still answer, having spent the refresh
      // token sent.
      logger.warn('OAuth token refresh is slow; its answer will be stored when it comes', {
        providerId,
        accountId,
      });
      return late.then(
        (token) => ({ token, exchanged: true }),
        (lateError: unknown) => {
          logger.warn('a late OAuth refresh answer was not stored', {
            providerId,
            accountId,
            error: lateError instanceof Error ? lateError.message : String(lateError),
          });
          throw lateError;
        },
      );
    }
  }

  return {
    async accessToken(userId, providerId) {
      const account = await db
        .selectFrom('account')
        .select(['id', 'accessToken', 'refreshToken', 'accessTokenExpiresAt', 'updatedAt'])
        .where('userId', '=', userId)
        .where('providerId', '=', providerId)
        .where('accessToken', 'is not', null)
        .orderBy('updatedAt', 'desc')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      if (!account?.accessToken) return { ok: false, reason: 'none' };
      if (!expired(account.accessTokenExpiresAt, Date.now(), account.updatedAt)) {
        return { ok: true, token: await decrypt(account.accessToken, await context()) };
      }
      if (account.refreshToken === null) return { ok: false, reason: 'expired' };
      if (await isMarkedForReconnect(db, account.id, account.accessToken)) {
        return { ok: false, reason: 'refused' };
      }

      let flight = inflight.get(account.id);
      if (flight === undefined) {
        const started = refresh(account.id, providerId, userId);
        flight = started.then((done) => done.token);
        inflight.set(account.id, flight);
        // Settles after the callers may have stopped waiting (a late answer): handled here. A
        // flight that found the token already refreshed (callers that read the row before that
        // refresh was stored) sent nothing, so it is no refresh of the metric's.
        started.then(
          (done) => {
            inflight.delete(account.id);
            if (done.exchanged) options.onRefresh?.(providerId, 'ok');
          },
          () => {
            inflight.delete(account.id);
            options.onRefresh?.(providerId, 'failed');
          },
        );
      }
      try {
        return { ok: true, token: await withTimeout(flight, timeoutMs) };
      } catch (error) {
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
    },
  };
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new RefreshTimeoutError(`no answer from the provider within ${ms / 1000}s`)),
      ms,
    );
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
