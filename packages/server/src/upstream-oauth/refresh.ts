import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Kysely } from 'kysely';
import { connectionSecret, storeConnectionSecret } from '../connections/secret-store.js';
import type { DatabaseSchema } from '../db/index.js';
import { rowLocksSupported } from '../db/locks.js';
import { refreshUnderLease } from '../db/refresh-lease.js';
import { maskSecret, type SecretBox } from '../secrets/index.js';
import type { UrlPolicy } from '../upstream/url-policy.js';
import { readClient } from './clients.js';
import { dueForRefresh, type Envelope, openEnvelope } from './envelope.js';
import { createOAuthFetch } from './oauth-fetch.js';
import { oauthClient } from './sdk.js';

/** How long a refresh may take before its callers give up. */
const REFRESH_TIMEOUT_MS = 20_000;
/** A refresh lease outlives the refresh's own time limit by this much (SQLite). */
const LEASE_MS = 5_000;

/** What a refresh works with. */
export interface RefreshDeps {
  db: Kysely<DatabaseSchema>;
  secrets: Pick<SecretBox, 'encrypt' | 'decrypt'>;
  policy: UrlPolicy;
}

/**
 * Refreshes a connection's upstream tokens once across instances: under a lock on its row on
 * PostgreSQL, under a lease row on SQLite. Callers in one process share one refresh themselves
 * (see `UpstreamTokens`).
 *
 * @example
 * const token = await new TokenRefresher(deps).refresh(connectionId, 'secure');
 */
export class TokenRefresher {
  readonly #deps: RefreshDeps;

  constructor(deps: RefreshDeps) {
    this.#deps = deps;
  }

  /**
   * The connection's access token, refreshed unless another caller already did.
   *
   * @throws RefreshRefused when the authorization server refused the refresh token itself.
   */
  refresh(connectionId: string, sourceId: string): Promise<string> {
    return rowLocksSupported(this.#deps.db)
      ? this.#refreshLocked(connectionId, sourceId)
      : this.#refreshLeased(connectionId, sourceId);
  }

  /**
   * PostgreSQL: the refresh runs in a transaction holding the connection's row, which it re-reads,
   * so an instance waiting for the row finds the fresh token instead of spending the refresh
   * token again.
   */
  #refreshLocked(connectionId: string, sourceId: string): Promise<string> {
    return this.#deps.db.transaction().execute(async (trx) => {
      const stored = await connectionSecret(trx, connectionId, { forUpdate: true });
      if (stored === undefined) throw new Error('the connection was removed');
      const envelope = openEnvelope(this.#deps.secrets, stored);
      if (typeof envelope === 'string') return envelope;
      if (!dueForRefresh(envelope)) return envelope.accessToken;
      const next = await this.#exchange(envelope, sourceId, stored, trx);
      await this.#store(trx, connectionId, next);
      return next.accessToken;
    });
  }

  /**
   * SQLite, where a write blocks the whole process until the database's lock is free: under the
   * connection's refresh lease ({@link refreshUnderLease}), no lock held while the authorization
   * server answers.
   */
  #refreshLeased(connectionId: string, sourceId: string): Promise<string> {
    const { db } = this.#deps;
    let seen: { envelope: Envelope; stored: string } | undefined;
    return refreshUnderLease(db, `upstream:${connectionId}`, {
      holdMs: REFRESH_TIMEOUT_MS + LEASE_MS,
      current: async () => {
        const stored = await connectionSecret(db, connectionId);
        if (stored === undefined) throw new Error('the connection was removed');
        const envelope = openEnvelope(this.#deps.secrets, stored);
        if (typeof envelope === 'string') return envelope;
        if (!dueForRefresh(envelope)) return envelope.accessToken;
        seen = { envelope, stored };
        return undefined;
      },
      refresh: async () => {
        if (seen === undefined) throw new Error('the connection was not read');
        const next = await this.#exchange(seen.envelope, sourceId, seen.stored, db);
        await this.#store(db, connectionId, next);
        return next.accessToken;
      },
    });
  }

  /** Sends the refresh token; the envelope with the new tokens. */
  async #exchange(
    envelope: Envelope,
    sourceId: string,
    storedSecret: string,
    db: Kysely<DatabaseSchema>,
  ): Promise<Envelope> {
    if (envelope.refreshToken === undefined) throw new Error('no refresh token');
    const client = await readClient({ db, secrets: this.#deps.secrets }, sourceId, envelope.issuer);
    if (client === undefined) throw new Error('the OAuth client of the source is gone');
    const oauthFetch = createOAuthFetch(this.#deps.policy);
    const { refreshAuthorization } = await oauthClient();
    let tokens: OAuthTokens;
    try {
      tokens = await withTimeout(
        refreshAuthorization(envelope.issuer, {
          metadata: client.metadata,
          clientInformation: {
            client_id: client.clientId,
            ...(client.clientSecret === undefined ? {} : { client_secret: client.clientSecret }),
          },
          refreshToken: envelope.refreshToken,
          ...(envelope.resource === '' ? {} : { resource: new URL(envelope.resource) }),
          fetchFn: oauthFetch.fetch,
        }),
        REFRESH_TIMEOUT_MS,
      );
    } catch (error) {
      if (isGrantRefusal(error)) throw new RefreshRefused(storedSecret);
      throw error;
    } finally {
      await oauthFetch.close();
    }
    const { expiresAt: _previous, ...rest } = envelope;
    return {
      ...rest,
      accessToken: tokens.access_token,
      ...(tokens.refresh_token === undefined ? {} : { refreshToken: tokens.refresh_token }),
      ...(tokens.expires_in === undefined
        ? {}
        : { expiresAt: Date.now() + tokens.expires_in * 1000 }),
    };
  }

  /** Writes `next` as the connection's tokens. */
  async #store(db: Kysely<DatabaseSchema>, connectionId: string, next: Envelope): Promise<void> {
    await storeConnectionSecret(db, connectionId, {
      encrypted: this.#deps.secrets.encrypt(JSON.stringify(next)),
      masked: maskSecret(next.accessToken),
      now: new Date().toISOString(),
    });
  }
}

/** The authorization server refused the refresh token itself (`invalid_grant`). */
export class RefreshRefused extends Error {
  constructor(readonly storedSecret: string) {
    super('the authorization server refused the refresh token');
  }
}

function isGrantRefusal(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { errorCode?: unknown }).errorCode;
  return code === 'invalid_grant' || /invalid_grant/.test(error.message);
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('no answer in time')), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
