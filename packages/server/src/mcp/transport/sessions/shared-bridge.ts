import {
  type JSONRPCMessage,
  parseJSONRPCMessage,
  type Server,
  type WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { ServerLogger } from '../../../http/logger.js';
import type { SessionState } from '../../../identity/index.js';
import { asLogLevel } from '../../log-levels.js';
import { type McpPrincipal, principalKey } from '../../principal.js';
import type { SessionLogLevel } from '../create-server.js';
import { initializeParams, sessionCapReached, tooManySessions } from '../session-http.js';
import { type BusMessage, rebuildSession, type SharedSessions } from '../shared-sessions/index.js';
import type { Admission } from './admission.js';
import type { HeldSessions } from './held-sessions.js';
import { closeSession, RETRY_MS, type Session, type SessionParts } from './session.js';
import type { StreamFollower } from './session-requests.js';
import { type ServedChanged, tellToolsChanged } from './tools-change.js';

/** Options of {@link SharedBridge}. */
export interface SharedBridgeOptions {
  shared: SharedSessions;
  held: HeldSessions;
  admission: Admission;
  /** A fresh server for a session of `principal`, reading its log level from `level`. */
  createServer: (principal: McpPrincipal, level: SessionLogLevel) => Promise<Server>;
  maxBodyBytes: number;
  /** The most sessions one principal may hold, counted in the database. */
  maxSessionsPerUser: number;
  /** The most copies rebuilt here of sessions opened elsewhere. */
  maxRebuilt: number;
  /** How long a client resuming a tool call's stream that another instance runs is followed. */
  followStreamMs: number;
  logger?: Pick<ServerLogger, 'warn'>;
  /** A new session's server and transport; `sessionId` names it (`LegacySessions`' own). */
  open: (
    principal: McpPrincipal,
    sessionId: () => string,
    level: SessionLogLevel,
  ) => Promise<WebStandardStreamableHTTPServerTransport>;
  /** Holds a rebuilt session on this instance. */
  add: (parts: SessionParts) => Session;
  /** The client ended session `id` (`DELETE`). */
  closedByClient: (id: string) => Promise<void>;
  /** Whether a session's served tools changed (see `LegacySessionsOptions`). */
  servedChanged?: ServedChanged | undefined;
}

/**
 * Between the sessions this instance holds and the sessions shared on PostgreSQL (see
 * shared-sessions/): opens a session as a database row, rebuilds this instance's copy of one from
 * its row, checks a copy is still open, follows another instance's call streams, and acts on what
 * the other instances say (a session closed, an answer or a notification for it, its log level,
 * tool list changes). Used by `LegacySessions` on PostgreSQL only.
 *
 * @example
 * const bridge = new SharedBridge({ shared, held, admission, ...limits, open, add, closedByClient });
 * shared.onMessage((message, fromSelf) => bridge.heard(message, fromSelf));
 */
export class SharedBridge implements StreamFollower {
  readonly #options: SharedBridgeOptions;
  readonly #shared: SharedSessions;
  readonly #held: HeldSessions;
  /** Sessions being rebuilt from the database, by id and principal: concurrent requests rebuild once. */
  readonly #restoring = new Map<string, Promise<Session | Response | undefined>>();

  constructor(options: SharedBridgeOptions) {
    this.#options = options;
    this.#shared = options.shared;
    this.#held = options.held;
  }

  /**
   * Answers the `initialize` in `request` of `principal` by opening a session stored in the
   * database: a 429 answer when every session of the principal is busy, or this instance's are.
   * Rejects when the database or the new session's transport does; the session is closed then.
   */
  async openShared(
    request: Request,
    principal: McpPrincipal,
    body: unknown,
    options: { parsedBody?: unknown },
  ): Promise<Response> {
    const shared = this.#shared;
    const owner = principalKey(principal);
    const id = crypto.randomUUID();
    await shared.ensureListening();
    const reserved = await shared.reserve(
      { id, owner, initParams: initializeParams(body) },
      this.#options.maxSessionsPerUser,
      (held) => (this.#held.get(held)?.inFlight ?? 0) > 0,
    );
    if (!reserved.ok) {
      this.#options.logger?.warn('MCP session refused: every session of the principal is busy', {
        principal: owner,
        sessions: reserved.held,
      });
      return sessionCapReached(body, reserved.held, this.#options.maxSessionsPerUser, false);
    }
    for (const evicted of reserved.evicted) this.#dropCopy(evicted);
    await shared.announceClosed(reserved.evicted);
    const refused = this.#options.admission.makeServerRoom(body);
    if (refused !== undefined) {
      await shared.close(id);
      return refused;
    }
    try {
      const transport = await this.#options.open(principal, () => id, shared.levelOf(id));
      const response = await transport.handleRequest(request, options);
      // An initialize the transport refused opened nothing.
      if (!this.#held.has(id)) await shared.close(id);
      // The initialize's answer is streamed with its event ids: stored before the client sees them.
      else await this.#held.get(id)?.events?.shown();
      return response;
    } catch (error) {
      this.#dropCopy(id);
      await shared.close(id).catch(() => {});
      throw error;
    }
  }

  /**
   * Rebuilds session `id` of `principal` from the database: a fresh server and transport are
   * given the client's `initialize` again, with the session's id, and its log level. Nothing of
   * the replay reaches the client or the event store. Undefined when there is no such session
   * or it is another principal's; a 429 answer when this instance is at its session cap.
   * Rejects when the database does.
   */
  restore(
    request: Request,
    id: string,
    principal: McpPrincipal,
  ): Promise<Session | Response | undefined> {
    // Per principal too: someone else naming the session must not make its owner's request fail.
    const key = `${id}\n${principalKey(principal)}`;
    let pending = this.#restoring.get(key);
    if (pending === undefined) {
      pending = this.#rebuild(request, id, principal).finally(() => this.#restoring.delete(key));
      this.#restoring.set(key, pending);
    }
    return pending;
  }

  async #rebuild(
    request: Request,
    id: string,
    principal: McpPrincipal,
  ): Promise<Session | Response | undefined> {
    const shared = this.#shared;
    const stored = await shared.load(id);
    if (stored === undefined || stored.owner !== principalKey(principal)) return undefined;
    const refused = this.#makeRoomForCopy() ?? this.#options.admission.makeRoomToRebuild();
    if (refused !== undefined) return refused;
    await shared.ensureListening();
    const rebuilt = await rebuildSession(stored, {
      shared,
      principal,
      createServer: this.#options.createServer,
      maxBodyBytes: this.#options.maxBodyBytes,
      retryMs: RETRY_MS,
      onClosed: (closed) => this.#options.closedByClient(closed),
      url: request.url,
    });
    return rebuilt === undefined ? undefined : this.#options.add({ id, principal, ...rebuilt });
  }

  /**
   * Whether the session this instance holds a copy of is still open, since a `DELETE` or an
   * expiry on another instance is announced a moment later; and its stored log level, which
   * another instance may have set just now. One primary-key read per request of a 2025 session,
   * made in the statement of the request's token lookup when `read` has it (identity's token
   * repository), else here. Rejects when the database does.
   */
  async stillOpen(session: Session, read?: SessionState): Promise<boolean> {
    const stored =
      read?.id === session.id
        ? read.open
          ? { logLevel: read.logLevel ?? undefined }
          : undefined
        : await this.#shared.load(session.id);
    if (stored === undefined) {
      this.#dropCopy(session.id);
      return false;
    }
    const level = asLogLevel(stored.logLevel);
    if (level !== undefined) session.level.follow?.(level);
    return true;
  }

  /**
   * The answer to a GET of session `sessionId` resuming the stream of a tool call another
   * instance runs, followed in the database; undefined when this instance's transport answers it.
   * Rejects when the database does.
   */
  follow(sessionId: string, request: Request): Promise<Response | undefined> {
    return this.#shared.follow(sessionId, request, this.#options.followStreamMs);
  }

  /** What another instance said (see `BusMessage`). Never throws. */
  heard(message: BusMessage, fromSelf: boolean): void {
    if (message.kind === 'tools') {
      tellToolsChanged(this.#held.values(), message.change, true, this.#options.servedChanged);
      return;
    }
    // Upstreams' notices are the MCP endpoint's (SharedSessions.onNotice).
    if (message.kind === 'notice') return;
    const session = this.#held.get(message.sessionId);
    if (session === undefined) return;
    switch (message.kind) {
      case 'closed':
        this.#dropCopy(session.id);
        break;
      case 'answer':
        if (message.to === this.#shared.instance) deliver(session, message.message);
        break;
      case 'notify':
        if (!fromSelf) deliver(session, message.message);
        break;
      case 'level': {
        const level = asLogLevel(message.level);
        // The copy that was asked stored and told it; the others only follow.
        if (!fromSelf && level !== undefined) session.level.follow?.(level);
        break;
      }
    }
  }

  /**
   * At the cap of rebuilt copies, drops the least recently used idle one; a 429 answer when
   * every copy is busy.
   */
  #makeRoomForCopy(): Response | undefined {
    let copies = 0;
    let idle: Session | undefined;
    // Least recently used first.
    for (const session of this.#held.values()) {
      if (session.rebuilt !== true) continue;
      copies += 1;
      if (idle === undefined && session.inFlight === 0 && session.listening === 0) idle = session;
    }
    if (copies < this.#options.maxRebuilt) return undefined;
    if (idle === undefined) {
      this.#options.logger?.warn('MCP session not rebuilt: every rebuilt copy here is busy', {
        copies,
      });
      return tooManySessions(
        undefined,
        `Too many MCP sessions rebuilt on this server: all ${copies} have a request in flight. Retry when a call finishes.`,
      );
    }
    this.#dropCopy(idle.id);
    return undefined;
  }

  /** Drops this instance's copy of session `id`; the session itself lives on elsewhere. */
  #dropCopy(id: string): void {
    const session = this.#held.get(id);
    if (session === undefined) return;
    this.#held.remove(session);
    void closeSession(session);
  }
}

/** Hands `session` a client message another instance received; a malformed one is dropped. */
function deliver(session: Session, message: unknown): void {
  let parsed: JSONRPCMessage;
  try {
    parsed = parseJSONRPCMessage(message);
  } catch {
    return;
  }
  session.receive?.(parsed);
}
