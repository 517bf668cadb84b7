import { refreshAuthorization } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { DatabaseSchema } from '../db/index.js';
import { lockUser, rowLocksSupported } from '../db/locks.js';
import type { ServerLogger } from '../http/logger.js';
import { maskSecret, type SecretBox } from '../secrets/index.js';
import { oauthToolId, type UpstreamTokenLookup } from '../upstream/oauth-hooks.js';
import type { UrlPolicy } from '../upstream/url-policy.js';
import { findServingConnection } from '../vending/connection-source.js';
import { isMarkedForReconnect, markReconnect } from '../vending/reconnect-marks.js';
import { readClient } from './clients.js';
import { createOAuthFetch } from './oauth-fetch.js';

/** A token this close to expiry is refreshed before it is sent. */
const EXPIRY_SKEW_MS = 30_000;
const REFRESH_TIMEOUT_MS = 20_000;
/** A refresh lease outlives the refresh's own time limit by this much (SQLite). */
const LEASE_MS = 5_000;
/** How often an instance waiting for another's refresh looks again (SQLite). */
const LEASE_POLL_MS = 100;

/** What is encrypted in the connection: the tokens and what refreshing them needs. */
const envelopeSchema = z.object({
  v: z.literal(1),
  accessToken: z.string().min(1),
  refreshToken: z.string().optional(),
  /** Epoch milliseconds, when the server said. */
  expiresAt: z.number().optional(),
  issuer: z.string(),
  resource: z.string(),
});
type Envelope = z.infer<typeof envelopeSchema>;

/** What the token store works with. */
export interface UpstreamTokenDeps {
  db: Kysely<DatabaseSchema>;
  secrets: Pick<SecretBox, 'encrypt' | 'decrypt'>;
  logger: ServerLogger;
  policy: UrlPolicy;
}

/**
 * The users' tokens for upstream MCP servers with `auth: { kind: "oauth" }`, kept as each user's
 * own connection of tool `mcp.<source id>` (encrypted like every connection), refreshed when they
 * expire: single-flight in a process (one promise per connection) and across instances (the
 * refresh runs in a transaction holding the connection's row, which re-reads it and refreshes
 * only if it is still expired), so a refresh token is never spent twice.
 */
export class UpstreamTokens {
  readonly #deps: UpstreamTokenDeps;
  readonly #inflight = new Map<string, Promise<string>>();

  constructor(deps: UpstreamTokenDeps) {
    this.#deps = deps;
  }

  /** Stores `tokens` as `userId`'s connection to source `sourceId`, replacing the one before. */
  async save(input: {
    userId: string;
    sourceId: string;
    tokens: OAuthTokens;
    issuer: string;
    resource: string;
  }): Promise<void> {
    const { db, secrets } = this.#deps;
    const envelope: Envelope = {
      v: 1,
      accessToken: input.tokens.access_token,
      ...(input.tokens.refresh_token === undefined
        ? {}
        : { refreshToken: input.tokens.refresh_token }),
      ...(input.tokens.expires_in === undefined
        ? {}
        : { expiresAt: Date.now() + input.tokens.expires_in * 1000 }),
      issuer: input.issuer,
      resource: input.resource,
    };
    const toolId = oauthToolId(input.sourceId);
    const now = new Date().toISOString();
    const encrypted = secrets.encrypt(JSON.stringify(envelope));
    const masked = maskSecret(input.tokens.access_token);
    await db.transaction().execute(async (trx) => {
      if (!(await lockUser(trx, input.userId))) throw new Error('the user no longer exists');
      const existing = await trx
        .selectFrom('connections')
        .select('id')
        .where('user_id', '=', input.userId)
        .where('owner', '=', 'user')
        .where('tool_id', '=', toolId)
        .where('parent_id', 'is', null)
        .execute();
      const [keep, ...rest] = existing;
      if (rest.length > 0) {
        await trx
          .deleteFrom('connections')
          .where(
            'id',
            'in',
            rest.map((row) => row.id),
          )
          .execute();
      }
      if (keep !== undefined) {
        await trx
          .updateTable('connections')
          .set({ encrypted_secret: encrypted, masked_secret: masked, updated_at: now })
          .where('id', '=', keep.id)
          .execute();
        return;
      }
      await trx
        .insertInto('connections')
        .values({
          id: crypto.randomUUID(),
          user_id: input.userId,
          owner: 'user',
          tool_id: toolId,
          instance_name: 'Default',
          description: null,
          encrypted_secret: encrypted,
          masked_secret: masked,
          workspace_id: null,
          parent_id: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
    });
  }

  /**
   * `userId`'s own access token for source `sourceId`, refreshed first when it expires within
   * 30 s. Only the user's own connection counts: never a team connection or another user's.
   * A connection holding a plain token (pasted, not from the connect flow) is sent as it is.
   */
  async accessToken(userId: string, sourceId: string): Promise<UpstreamTokenLookup> {
    const { db } = this.#deps;
    const found = await findServingConnection(db, {
      owner: 'user',
      userId,
      toolId: oauthToolId(sourceId),
    });
    if (found === undefined) return { ok: false, reason: 'none' };
    if (await isMarkedForReconnect(db, found.id, found.encryptedSecret)) {
      return { ok: false, reason: 'refused' };
    }
    const envelope = this.#open(found.encryptedSecret);
    if (typeof envelope === 'string') return { ok: true, token: envelope, connectionId: found.id };
    if (!dueForRefresh(envelope)) {
      return { ok: true, token: envelope.accessToken, connectionId: found.id };
    }
    if (envelope.refreshToken === undefined) return { ok: false, reason: 'expired' };
    let flight = this.#inflight.get(found.id);
    if (flight === undefined) {
      const started = this.#refresh(found.id, userId, sourceId);
      flight = started;
      this.#inflight.set(found.id, started);
      started.then(
        () => this.#inflight.delete(found.id),
        () => this.#inflight.delete(found.id),
      );
    }
    try {
      return { ok: true, token: await flight, connectionId: found.id };
    } catch (error) {
      const refused = error instanceof RefreshRefused;
      this.#deps.logger.warn('upstream OAuth token refresh failed', {
        sourceId,
        userId,
        refused,
      });
      return { ok: false, reason: refused ? 'refused' : 'refresh_failed' };
    }
  }

  /**
   * Marks `userId`'s connection to `sourceId` as needing a reconnect (the upstream answered 401
   * to its token). A new connect replaces the token, which clears the mark.
   */
  async markRefused(userId: string, sourceId: string, connectionId: string): Promise<void> {
    const { db } = this.#deps;
    const row = await db
      .selectFrom('connections')
      .select('encrypted_secret')
      .where('id', '=', connectionId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (row === undefined) return;
    await markReconnect(
      db,
      {
        id: connectionId,
        userId,
        providerId: oauthToolId(sourceId),
        accessToken: row.encrypted_secret,
      },
      'upstream_401',
    );
  }

  /** The `mcp.<source id>` tool ids whose connection of `userId`'s the upstream refused. */
  async needingReconnect(userId: string): Promise<Set<string>> {
    const rows = await this.#deps.db
      .selectFrom('oauth_reconnect')
      .innerJoin('connections', 'connections.id', 'oauth_reconnect.account_id')
      .select(['connections.id', 'connections.tool_id', 'connections.encrypted_secret'])
      .where('oauth_reconnect.user_id', '=', userId)
      .where('connections.tool_id', 'like', 'mcp.%')
      .execute();
    const marked = new Set<string>();
    for (const row of rows) {
      if (await isMarkedForReconnect(this.#deps.db, row.id, row.encrypted_secret)) {
        marked.add(row.tool_id);
      }
    }
    return marked;
  }

  /** The envelope, or the raw token of a connection that holds a plain one. */
  #open(encrypted: string): Envelope | string {
    const raw = this.#deps.secrets.decrypt(encrypted);
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      return raw;
    }
    const parsed = envelopeSchema.safeParse(json);
    return parsed.success ? parsed.data : raw;
  }

  async #refresh(connectionId: string, userId: string, sourceId: string): Promise<string> {
    const { db } = this.#deps;
    try {
      return rowLocksSupported(db)
        ? await this.#refreshLocked(connectionId, sourceId)
        : await this.#refreshLeased(connectionId, sourceId);
    } catch (error) {
      if (error instanceof RefreshRefused) {
        // That refresh token is dead: never sent again, and the user is asked to reconnect.
        await markReconnect(
          db,
          {
            id: connectionId,
            userId,
            providerId: oauthToolId(sourceId),
            accessToken: error.storedSecret,
          },
          'invalid_grant',
        );
      }
      throw error;
    }
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
      const envelope = this.#open(row.encrypted_secret);
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
      const envelope = this.#open(row.encrypted_secret);
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
          const current = this.#open(now.encrypted_secret);
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
class RefreshRefused extends Error {
  constructor(readonly storedSecret: string) {
    super('the authorization server refused the refresh token');
  }
}

function isGrantRefusal(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { errorCode?: unknown }).errorCode;
  return code === 'invalid_grant' || /invalid_grant/.test(error.message);
}

function dueForRefresh(envelope: Envelope): boolean {
  return envelope.expiresAt !== undefined && envelope.expiresAt - Date.now() < EXPIRY_SKEW_MS;
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
