import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../db/index.js';
import { rowLocksSupported } from '../db/locks.js';
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
/** How often an instance waiting for another's refresh looks again (SQLite). */
const LEASE_POLL_MS = 100;

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
      const row = await trx
        .selectFrom('connections')
        .select('encrypted_secret')
        .where('id', '=', connectionId)
        .forUpdate()
        .executeTakeFirst();
      if (row === undefined) throw new Error('the connection was removed');
      const envelope = openEnvelope(this.#deps.secrets, row.encrypted_secret);
      if (typeof envelope === 'string') return envelope;
      if (!dueForRefresh(envelope)) return envelope.accessToken;
      const next = await this.#exchange(envelope, sourceId, row.encrypted_secret, trx);
      await this.#store(trx, connectionId, next);
      return next.accessToken;
    });
  }

  /**
   * SQLite, where a write blocks the whole process until the database's lock is free, so no lock
   * is held while the authorization server answers: the instance that takes the connection's
   * lease (a row, held at most {@link REFRESH_TIMEOUT_MS}) refreshes; the others wait for the
   * fresh tokens it stores, or for the lease to go, and then look again.
   */
  async #refreshLeased(connectionId: string, sourceId: string): Promise<string> {
    const { db } = this.#deps;
    const deadline = Date.now() + REFRESH_TIMEOUT_MS + LEASE_MS;
    for (;;) {
      const row = await db
        .selectFrom('connections')
        .select('encrypted_secret')
        .where('id', '=', connectionId)
        .executeTakeFirst();
      if (row === undefined) throw new Error('the connection was removed');
      const envelope = openEnvelope(this.#deps.secrets, row.encrypted_secret);
      if (typeof envelope === 'string') return envelope;
      if (!dueForRefresh(envelope)) return envelope.accessToken;
      if (await this.#takeLease(connectionId)) {
        try {
          // Taken after the read above: another instance may have stored fresh tokens since.
          const now = await db
            .selectFrom('connections')
            .select('encrypted_secret')
            .where('id', '=', connectionId)
            .executeTakeFirst();
          if (now === undefined) throw new Error('the connection was removed');
          const current = openEnvelope(this.#deps.secrets, now.encrypted_secret);
          if (typeof current === 'string') return current;
          if (!dueForRefresh(current)) return current.accessToken;
          const next = await this.#exchange(current, sourceId, now.encrypted_secret, db);
          await this.#store(db, connectionId, next);
          return next.accessToken;
        } finally {
          await db
            .deleteFrom('upstream_oauth_refresh_leases')
            .where('connection_id', '=', connectionId)
            .execute();
        }
      }
      if (Date.now() > deadline) throw new Error('another instance is still refreshing');
      await new Promise((resolve) => setTimeout(resolve, LEASE_POLL_MS));
    }
  }

  /** Takes the connection's refresh lease unless another holder's is still running. */
  async #takeLease(connectionId: string): Promise<boolean> {
    const now = new Date();
    const until = new Date(now.getTime() + REFRESH_TIMEOUT_MS + LEASE_MS).toISOString();
    const result = await this.#deps.db
      .insertInto('upstream_oauth_refresh_leases')
      .values({ connection_id: connectionId, until })
      .onConflict((oc) =>
        oc
          .column('connection_id')
          .doUpdateSet({ until })
          .where('upstream_oauth_refresh_leases.until', '<', now.toISOString()),
      )
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
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
          resource: new URL(envelope.resource),
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
    await db
      .updateTable('connections')
      .set({
        encrypted_secret: this.#deps.secrets.encrypt(JSON.stringify(next)),
        masked_secret: maskSecret(next.accessToken),
        updated_at: new Date().toISOString(),
      })
      .where('id', '=', connectionId)
      .execute();
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
