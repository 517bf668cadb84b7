import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { connectionsAmong } from '../connections/secret-store.js';
import type { DatabaseSchema } from '../db/index.js';

/**
 * OAuth accounts whose provider refused a refresh, so no further refresh is attempted and the
 * user is asked to reconnect (table `oauth_reconnect`). A mark binds to the access token the
 * account held when it was made: a reconnect stores a new one and the mark no longer applies.
 */

const hashOf = (storedAccessToken: string) =>
  createHash('sha256').update(storedAccessToken).digest('hex');

/** Marks `account` as needing a reconnect because its provider answered `reason`. */
export async function markReconnect(
  db: Kysely<DatabaseSchema>,
  account: { id: string; userId: string; providerId: string; accessToken: string },
  reason: string,
): Promise<void> {
  const row = {
    account_id: account.id,
    user_id: account.userId,
    provider_id: account.providerId,
    access_token_hash: hashOf(account.accessToken),
    reason,
    created_at: new Date().toISOString(),
  };
  await db
    .insertInto('oauth_reconnect')
    .values(row)
    .onConflict((oc) =>
      oc.column('account_id').doUpdateSet({
        access_token_hash: row.access_token_hash,
        reason,
        created_at: row.created_at,
      }),
    )
    .execute();
}

/**
 * The ids of `userId`'s marked accounts, as a subquery (`where('id', 'in', ...)`); a mark may
 * no longer apply ({@link isMarkedForReconnect} tells).
 */
export function reconnectMarksOf(db: Kysely<DatabaseSchema>, userId: string) {
  return db.selectFrom('oauth_reconnect').select('account_id').where('user_id', '=', userId);
}

/** Whether the account holding `storedAccessToken` (as stored, encrypted) is marked. */
export async function isMarkedForReconnect(
  db: Kysely<DatabaseSchema>,
  accountId: string,
  storedAccessToken: string,
): Promise<boolean> {
  const mark = await db
    .selectFrom('oauth_reconnect')
    .select('access_token_hash')
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  if (mark === undefined) return false;
  if (mark.access_token_hash === hashOf(storedAccessToken)) return true;
  await db.deleteFrom('oauth_reconnect').where('account_id', '=', accountId).execute();
  return false;
}

/**
 * `userId`'s linked accounts that need a reconnect: marked, and still holding the access token
 * they held then (a reconnect since has cleared the mark in effect). For `GET /api/me`.
 *
 * @example
 * const stale = await accountsNeedingReconnect(db, user.id); // [{ accountId, providerId: 'gcp' }]
 */
export async function accountsNeedingReconnect(
  db: Kysely<DatabaseSchema>,
  userId: string,
): Promise<{ accountId: string; providerId: string }[]> {
  const rows = await db
    .selectFrom('oauth_reconnect')
    .innerJoin('account', 'account.id', 'oauth_reconnect.account_id')
    .select([
      'oauth_reconnect.account_id',
      'oauth_reconnect.provider_id',
      'oauth_reconnect.access_token_hash',
      'account.accessToken',
    ])
    .where('oauth_reconnect.user_id', '=', userId)
    .execute();
  return rows
    .filter((row) => row.accessToken !== null && hashOf(row.accessToken) === row.access_token_hash)
    .map((row) => ({ accountId: row.account_id, providerId: row.provider_id }));
}

/**
 * The better-auth provider ids among `userId`'s linked accounts that need a reconnect (for the
 * Tools tab, `GET /api/tools/status`).
 *
 * @example
 * const stale = await providersNeedingReconnect(db, user.id); // Set { 'gcp' }
 */
export async function providersNeedingReconnect(
  db: Kysely<DatabaseSchema>,
  userId: string,
): Promise<Set<string>> {
  const accounts = await accountsNeedingReconnect(db, userId);
  return new Set(accounts.map((account) => account.providerId));
}

/** OAuth error codes meaning the refresh token will never work again (RFC 6749 5.2, Slack's). */
const REFUSALS = new Set(['invalid_grant', 'invalid_refresh_token', 'token_revoked']);

/** Errors, by name, that mean the provider could not be reached (or its discovery failed). */
const OUTAGE_ERRORS = new Set([
  'ProviderUnavailableError',
  'DiscoveryError',
  'RefreshOutageError',
  'TimeoutError',
]);

/**
 * What a failed refresh says, readable in a log: better-auth throws the provider's error body
 * (an object, which printed as "[object Object]") or an Error. `refused` is true when the
 * provider refused the refresh token itself; `unreachable` when it is down or slow (not reached,
 * its discovery failing, a 5xx or 429 answer): nothing of the user's expired then.
 */
export function describeRefreshError(error: unknown): {
  message: string;
  refused: boolean;
  unreachable: boolean;
} {
  if (error instanceof Error) {
    return {
      message: error.message,
      refused: false,
      // A fetch that never got an answer fails with a TypeError ("fetch failed").
      unreachable: OUTAGE_ERRORS.has(error.name) || error instanceof TypeError,
    };
  }
  if (typeof error === 'object' && error !== null) {
    const fields = error as Record<string, unknown>;
    const code = typeof fields.error === 'string' ? fields.error : undefined;
    const description =
      typeof fields.error_description === 'string' ? fields.error_description : undefined;
    const status = typeof fields.status === 'number' ? fields.status : undefined;
    const message = [
      code === undefined ? 'the provider refused the refresh' : `the provider answered ${code}`,
      description,
      status === undefined ? undefined : `(HTTP ${status})`,
    ]
      .filter((part) => part !== undefined)
      .join(' ');
    const refused = code !== undefined && REFUSALS.has(code);
    const outage = status !== undefined && (status >= 500 || status === 429 || status === 408);
    return { message, refused, unreachable: !refused && outage };
  }
  return { message: String(error), refused: false, unreachable: false };
}

/**
 * The `limit` most recent reconnect marks that still apply, newest first: whose account, which
 * provider, since. A mark whose account (a linked sign-in account, or an upstream's or a
 * plugin's OAuth connection) was reconnected since, or is gone, is left out.
 *
 * @example
 * const marks = await recentReconnectMarks(db, 50); // [{ userId, provider: 'gcp', since }]
 */
export async function recentReconnectMarks(
  db: Kysely<DatabaseSchema>,
  limit: number,
): Promise<{ userId: string; provider: string; since: string }[]> {
  const [rows, connections] = await Promise.all([
    db
      .selectFrom('oauth_reconnect')
      .leftJoin('account', 'account.id', 'oauth_reconnect.account_id')
      .select([
        'oauth_reconnect.account_id',
        'oauth_reconnect.user_id',
        'oauth_reconnect.provider_id',
        'oauth_reconnect.access_token_hash',
        'oauth_reconnect.created_at',
        'account.accessToken',
      ])
      .orderBy('oauth_reconnect.created_at', 'desc')
      .orderBy('oauth_reconnect.account_id', 'desc')
      .execute(),
    connectionsAmong(db, db.selectFrom('oauth_reconnect').select('account_id')),
  ]);
  const connectionSecrets = new Map(connections.map((row) => [row.id, row.encrypted_secret]));
  return rows
    .filter((row) => {
      const stored = row.accessToken ?? connectionSecrets.get(row.account_id) ?? null;
      return stored !== null && hashOf(stored) === row.access_token_hash;
    })
    .slice(0, limit)
    .map((row) => ({
      userId: row.user_id,
      provider: row.provider_id,
      since: row.created_at,
    }));
}
