import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Kysely } from 'kysely';
import {
  connectionSecret,
  connectionsAmong,
  recentUsersOf,
  saveOwnConnection,
} from '../connections/secret-store.js';
import { findServingConnection } from '../connections/serving-connection.js';
import type { DatabaseSchema } from '../db/index.js';
import type { ServerLogger } from '../http/logger.js';
import { maskSecret, type SecretBox } from '../secrets/index.js';
import { oauthToolId, type UpstreamTokenLookup } from '../upstream/oauth-hooks.js';
import type { UrlPolicy } from '../upstream/url-policy.js';
import {
  isMarkedForReconnect,
  markReconnect,
  reconnectMarksOf,
} from '../vending/reconnect-marks.js';
import { dueForRefresh, type Envelope, openEnvelope } from './envelope.js';
import { RefreshRefused, TokenRefresher } from './refresh.js';

/** Users' connections tried for a token to list a source's tools with, at most. */
const LISTING_CANDIDATES = 5;

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
 * expire: single-flight in a process (one promise per connection) and across instances (see
 * {@link TokenRefresher}), so a refresh token is never spent twice.
 *
 * @example
 * const found = await tokens.accessToken(userId, 'secure');
 * if (found.ok) headers.Authorization = `Bearer ${found.token}`;
 */
export class UpstreamTokens {
  readonly #deps: UpstreamTokenDeps;
  readonly #inflight = new Map<string, Promise<string>>();
  readonly #refresher: TokenRefresher;

  constructor(deps: UpstreamTokenDeps) {
    this.#deps = deps;
    this.#refresher = new TokenRefresher(deps);
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
    const saved = await saveOwnConnection(db, {
      userId: input.userId,
      toolId,
      encrypted,
      masked,
      now,
    });
    if (!saved) throw new Error('the user no longer exists');
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
    const envelope = openEnvelope(this.#deps.secrets, found.encryptedSecret);
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
   * A token to list source `sourceId`'s tools with when no user is connecting: the users' own
   * connections to it, most recently updated first, the first of a few whose token still works
   * (refreshed when due, like a call's). Undefined when none does. Whose token lists the tools
   * is no secret of theirs: the list is served to every role that grants the namespace, as the
   * list fetched when a user connects is.
   */
  async listingToken(sourceId: string): Promise<string | undefined> {
    const users = await recentUsersOf(this.#deps.db, oauthToolId(sourceId), LISTING_CANDIDATES);
    for (const { user_id: userId } of users) {
      if (userId === null) continue;
      const found = await this.accessToken(userId, sourceId);
      if (found.ok) return found.token;
    }
    return undefined;
  }

  /**
   * Marks `userId`'s connection to `sourceId` as needing a reconnect (the upstream answered 401
   * to its token). A new connect replaces the token, which clears the mark.
   */
  async markRefused(userId: string, sourceId: string, connectionId: string): Promise<void> {
    const { db } = this.#deps;
    const stored = await connectionSecret(db, connectionId, { userId });
    if (stored === undefined) return;
    await markReconnect(
      db,
      {
        id: connectionId,
        userId,
        providerId: oauthToolId(sourceId),
        accessToken: stored,
      },
      'upstream_401',
    );
  }

  /**
   * The tool ids (`mcp.<source id>`, a plugin's own OAuth provider's id) whose connection of
   * `userId`'s the upstream or its authorization server refused.
   */
  async needingReconnect(userId: string): Promise<Set<string>> {
    const { db } = this.#deps;
    const rows = await connectionsAmong(db, reconnectMarksOf(db, userId));
    const marked = new Set<string>();
    for (const row of rows) {
      if (await isMarkedForReconnect(db, row.id, row.encrypted_secret)) {
        marked.add(row.tool_id);
      }
    }
    return marked;
  }

  async #refresh(connectionId: string, userId: string, sourceId: string): Promise<string> {
    const { db } = this.#deps;
    try {
      return await this.#refresher.refresh(connectionId, sourceId);
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
}
