import type { OAuth2Tokens } from 'better-auth/oauth2';
import type { Kysely } from 'kysely';
import type { GatewayAuth } from '../auth/create-auth.js';
import type { DatabaseSchema, GatewayDatabase } from '../db/index.js';
import { refreshUnderLease } from '../db/refresh-lease.js';
import type { ServerLogger } from '../http/logger.js';
import { describeRefreshError, markReconnect } from './reconnect-marks.js';

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

/** better-auth's context, which holds the key OAuth tokens are stored under. */
export const authContext = async (auth: GatewayAuth) => (await auth.instance()).$context;

/** Decrypts a stored OAuth token; better-auth's helpers load with the first read, not at start. */
export async function decrypt(value: string, ctx: AuthContext): Promise<string> {
  const { decryptOAuthToken } = await import('better-auth/oauth2');
  return decryptOAuthToken(value, ctx);
}

/** Encrypts an OAuth token for storage as better-auth does (`encryptOAuthTokens`). */
async function encrypt(value: string | undefined, ctx: AuthContext) {
  const { setTokenUtil } = await import('better-auth/oauth2');
  return setTokenUtil(value, ctx);
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

/** Whether a token expiring at `expiresAt` (stored at `storedAt`) is due for a refresh. */
export function expired(expiresAt: AccountDate, now: number, storedAt?: AccountDate): boolean {
  if (expiresAt === null) return false;
  const at = timeOf(expiresAt);
  if (Number.isNaN(at)) return true;
  const margin = refreshMargin(at, storedAt ? timeOf(storedAt) : undefined);
  return at - now < margin;
}

/** The provider refused the refresh token (`invalid_grant`); the account is marked. */
export class RefreshRefusedError extends Error {
  constructor(
    message: string,
    /** The account's access token as stored when the refresh was refused. */
    readonly storedAccessToken: string,
  ) {
    super(message);
  }
}

/** The provider answered a refresh with an outage status (5xx, 429). */
class RefreshOutageError extends Error {
  override readonly name = 'RefreshOutageError';
}

/** The provider did not answer a refresh in time. */
class RefreshTimeoutError extends Error {
  override readonly name = 'TimeoutError';
}

/** `promise`, or a {@link RefreshTimeoutError} once `ms` have passed. */
export async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
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

/** The account a refresh is for, and whose. */
export interface RefreshedAccount {
  accountId: string;
  providerId: string;
  userId: string;
}

/**
 * The account's access token after a refresh, and whether this flight sent the refresh token
 * (`exchanged`) or found the token refreshed by another caller meanwhile.
 */
export interface Refreshed {
  token: string;
  exchanged: boolean;
}

/** One refresh's means: the provider's call, and the storing of an answer that came too late. */
interface Flight {
  refreshWith: (refreshToken: string) => Promise<OAuth2Tokens>;
  storeLate: (answer: Promise<OAuth2Tokens>, row: StoredAccount) => Promise<string>;
}

/**
 * Refreshes an account's OAuth tokens once across instances: under the account row's lock on
 * PostgreSQL, under its refresh lease on SQLite; stores an answer that outlives the time limit
 * when it comes. The whole story is on `createOAuthTokenSource`, the one user.
 */
export class AccountRefresher {
  readonly #database: GatewayDatabase;
  readonly #auth: GatewayAuth;
  readonly #logger: ServerLogger;
  readonly #timeoutMs: number;

  constructor(
    database: GatewayDatabase,
    auth: GatewayAuth,
    logger: ServerLogger,
    timeoutMs: number,
  ) {
    this.#database = database;
    this.#auth = auth;
    this.#logger = logger;
    this.#timeoutMs = timeoutMs;
  }

  /**
   * Refreshes the account's access token.
   *
   * @throws {RefreshRefusedError} when the provider refused the refresh token (the account is
   *   then marked for a reconnect); what the provider or the database threw otherwise.
   */
  async refresh(account: RefreshedAccount): Promise<Refreshed> {
    const refreshWith = await this.#refreshFunction(account.providerId);
    // The storing of an answer that outlived the time limit: it may have spent the refresh token.
    let late: Promise<string> | undefined;
    const flight: Flight = {
      refreshWith,
      storeLate: (answer, row) => {
        late = this.#storeLateAnswer(account, answer, row);
        return late;
      },
    };
    try {
      return this.#database.dialect === 'postgres'
        ? await this.#underRowLock(account.accountId, flight)
        : await this.#underLease(account.accountId, flight);
    } catch (error) {
      if (error instanceof RefreshRefusedError) await this.#markRefused(account, error);
      if (late === undefined) throw error;
      return this.#awaitLate(account, late);
    }
  }

  async #refreshFunction(providerId: string): Promise<Flight['refreshWith']> {
    const ctx = await authContext(this.#auth);
    const provider = ctx.socialProviders.find((candidate) => candidate.id === providerId);
    if (!provider?.refreshAccessToken) {
      throw new Error(`provider ${providerId} is not configured or cannot refresh tokens`);
    }
    return provider.refreshAccessToken;
  }

  /**
   * PostgreSQL: the account's row stays locked until the answer is stored; another instance
   * waits on it, then finds the fresh token.
   */
  #underRowLock(accountId: string, flight: Flight): Promise<Refreshed> {
    return this.#database.db.transaction().execute(async (trx) => {
      const row = await readAccount(trx, accountId).forUpdate().executeTakeFirst();
      if (!row) throw new Error('the account was removed');
      const fresh = await this.#freshToken(row);
      if (fresh !== undefined) return { token: fresh, exchanged: false };
      const token = await this.#exchange(trx, accountId, flight.refreshWith, row, (answer) =>
        flight.storeLate(answer, row),
      );
      return { token, exchanged: true };
    });
  }

  /**
   * SQLite: the account's refresh lease plays the row lock's part, without holding the database
   * through the provider's answer.
   */
  async #underLease(accountId: string, flight: Flight): Promise<Refreshed> {
    const { db } = this.#database;
    let seen: AccountRow | undefined;
    let exchanged = false;
    const token = await refreshUnderLease(db, `account:${accountId}`, {
      holdMs: this.#timeoutMs + LEASE_MS,
      current: async () => {
        const row = await readAccount(db, accountId).executeTakeFirst();
        if (!row) throw new Error('the account was removed');
        seen = row;
        return this.#freshToken(row);
      },
      refresh: async (hold) => {
        const row = seen;
        if (row === undefined) throw new Error('the account was not read');
        exchanged = true;
        return this.#exchange(db, accountId, flight.refreshWith, row, (answer) => {
          // Until it is stored, no other process may send the refresh token again.
          hold(flight.storeLate(answer, row));
        });
      },
    });
    return { token, exchanged };
  }

  /** The account's access token when it needs no refresh (another caller refreshed it). */
  async #freshToken(row: AccountRow) {
    if (row.accessToken === null || expired(row.accessTokenExpiresAt, Date.now(), row.updatedAt)) {
      return undefined;
    }
    return decrypt(row.accessToken, await authContext(this.#auth));
  }

  /**
   * Sends `row`'s refresh token to the provider and stores the answer through `write`; the new
   * access token. An answer slower than the time limit is handed to `onLate` before this throws.
   */
  async #exchange(
    write: Kysely<DatabaseSchema>,
    accountId: string,
    refreshWith: Flight['refreshWith'],
    row: AccountRow,
    onLate: (answer: Promise<OAuth2Tokens>) => void,
  ): Promise<string> {
    if (row.refreshToken === null) throw new Error('the account has no refresh token');
    const answer = refreshWith(await decrypt(row.refreshToken, await authContext(this.#auth)));
    let tokens: OAuth2Tokens;
    try {
      tokens = await withTimeout(answer, this.#timeoutMs);
    } catch (error) {
      if (error instanceof RefreshTimeoutError) onLate(answer);
      throw refreshFailure(error, row);
    }
    if (!tokens.accessToken) throw new Error('the provider answered without an access token');
    await write
      .updateTable('account')
      .set(await this.#columns(tokens, row))
      .where('id', '=', accountId)
      .execute();
    return tokens.accessToken;
  }

  /** The account columns to write for `tokens`, keeping what the provider did not send again. */
  async #columns(tokens: OAuth2Tokens, row: StoredAccount) {
    const ctx = await authContext(this.#auth);
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
  async #storeLateAnswer(
    account: RefreshedAccount,
    answer: Promise<OAuth2Tokens>,
    row: StoredAccount,
  ): Promise<string> {
    const { accountId, providerId } = account;
    const tokens = await answer;
    if (!tokens.accessToken) throw new Error('the provider answered without an access token');
    const result = await this.#database.db
      .updateTable('account')
      .set(await this.#columns(tokens, row))
      .where('id', '=', accountId)
      .where('refreshToken', '=', row.refreshToken)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) {
      throw new Error(
        'the account changed while the provider was answering; its answer was dropped',
      );
    }
    this.#logger.info('a late OAuth refresh answer was stored', { providerId, accountId });
    return tokens.accessToken;
  }

  /**
   * Outside the rolled-back transaction. That refresh token is dead: it is never sent again,
   * and the user is asked to reconnect.
   */
  async #markRefused(account: RefreshedAccount, error: RefreshRefusedError): Promise<void> {
    const { accountId: id, userId, providerId } = account;
    await markReconnect(
      this.#database.db,
      { id, userId, providerId, accessToken: error.storedAccessToken },
      'invalid_grant',
    );
  }

  /**
   * The database is free again; the provider may still answer, having spent the refresh token
   * sent: the refresh settles with the storing of that answer.
   */
  #awaitLate(account: RefreshedAccount, late: Promise<string>): Promise<Refreshed> {
    const { accountId, providerId } = account;
    this.#logger.warn('OAuth token refresh is slow; its answer will be stored when it comes', {
      providerId,
      accountId,
    });
    return late.then(
      (token) => ({ token, exchanged: true }),
      (lateError: unknown) => {
        this.#logger.warn('a late OAuth refresh answer was not stored', {
          providerId,
          accountId,
          error: lateError instanceof Error ? lateError.message : String(lateError),
        });
        throw lateError;
      },
    );
  }
}

/** What a refresh that got no usable answer throws, from what the provider's call threw. */
function refreshFailure(error: unknown, row: AccountRow): unknown {
  const described = describeRefreshError(error);
  if (described.refused && row.accessToken !== null) {
    return new RefreshRefusedError(described.message, row.accessToken);
  }
  if (error instanceof Error) return error;
  // The provider's error body: kept as an outage when it is one (a 503, a 429).
  if (described.unreachable) return new RefreshOutageError(described.message);
  return new Error(described.message);
}
