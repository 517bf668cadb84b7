import {
  isInitializeRequest,
  type JSONRPCMessage,
  parseJSONRPCMessage,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { ServerLogger } from '../../http/logger.js';
import { localLogLevel, type SessionLogLevel } from '../create-server.js';
import { asLogLevel } from '../log-levels.js';
import { type McpPrincipal, principalKey } from '../principal.js';
import {
  initializeParams,
  sessionNotFound,
  tooManySessions,
  whenSent,
  withSessionVersion,
} from '../session-http.js';
import {
  type BusMessage,
  rebuildSession,
  routeAnswers,
  type SharedSessions,
  type ToolsChange,
} from '../shared-sessions/index.js';
import { SessionEventStore } from './session-event-store.js';
import { SessionOwners } from './session-owners.js';
import { affectedBy } from './tools-change.js';

interface Session {
  id: string;
  /** The principal that opened it: only the same principal may use it. */
  owner: string;
  principal: McpPrincipal;
  server: Server;
  transport: WebStandardStreamableHTTPServerTransport;
  lastSeen: number;
  /** POSTs of the session whose answer is still being sent (a call running, a question asked). */
  inFlight: number;
  /** Standalone GET streams of the session open on this instance. */
  listening: number;
  level: SessionLogLevel;
  /** Delivers a message another instance forwarded (shared sessions only). */
  receive?: (message: JSONRPCMessage) => void;
}

/** Options of {@link LegacySessions}. */
export interface LegacySessionsOptions {
  /** A fresh server for a session of `principal`, reading its log level from `level`. */
  createServer: (principal: McpPrincipal, level: SessionLogLevel) => Server;
  idleMs: number;
  /** The most sessions kept at once, a memory guard; at it, the largest holder gives one up. */
  maxSessions: number;
  /** The most sessions one principal (a user, a service account) may hold. */
  maxSessionsPerUser: number;
  maxBodyBytes: number;
  logger?: Pick<ServerLogger, 'info' | 'warn'>;
  /** PostgreSQL: sessions live in the database and any instance serves any of them. */
  shared?: SharedSessions;
  /**
   * How long a client resuming a tool call's stream on an instance that does not run the call
   * is kept following it (a tool's time limit plus the time it may wait for the user).
   */
  followStreamMs?: number;
}

const SWEEP_EVERY_MS = 60_000;
/** How long a client whose SSE stream closed should wait before reconnecting. */
const RETRY_MS = 1000;

/**
 * The 2025-revision sessions (`initialize`, `Mcp-Session-Id`) this instance serves. A session
 * keeps its server and transport, so the server can send requests to the client
 * (`elicitation/create`) and notifications (`tools/list_changed`).
 *
 * On SQLite sessions live in this instance's memory: a session id it does not know answers 404
 * and the client starts a new session, as the 2025 transport specifies.
 *
 * On PostgreSQL (`shared`) a session is a database row any instance can serve: an instance that
 * does not hold a session rebuilds it from the row by replaying the client's `initialize` into a
 * fresh server and transport with the session's id, and keeps that copy while it is used. What
 * the copies must agree on travels by `LISTEN`/`NOTIFY` (see shared-sessions/): a client's answer
 * to a question another instance asked, `DELETE` and expiry, the log level, tool list changes
 * (sent by whichever instance holds the client's GET stream). Events are stored in the database,
 * so `Last-Event-ID` resumes on any instance.
 *
 * Sessions are capped per principal (`maxSessionsPerUser`, counted in the database on
 * PostgreSQL): a principal at the cap that opens another gives up its own least recently used
 * idle session, never anyone else's; when all of theirs have a request in flight, the new
 * `initialize` answers 429. The overall cap (`maxSessions`) guards this instance's memory: at it,
 * the principal holding the most sessions here gives one up (on PostgreSQL only the copy here).
 */
export class LegacySessions {
  readonly #options: LegacySessionsOptions;
  readonly #shared: SharedSessions | undefined;
  /** In order of last use, oldest first (a Map keeps insertion order). */
  readonly #sessions = new Map<string, Session>();
  readonly #owners = new SessionOwners<Session>();
  /** `initialize` requests being answered, by principal: sessions about to exist. */
  readonly #opening = new Map<string, number>();
  /** Sessions being rebuilt from the database, by id and principal: concurrent requests rebuild once. */
  readonly #restoring = new Map<string, Promise<Session | Response | undefined>>();
  #openingTotal = 0;
  #sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(options: LegacySessionsOptions) {
    this.#options = options;
    this.#shared = options.shared;
    this.#shared?.onMessage((message, fromSelf) => this.#heard(message, fromSelf));
    if (this.#shared !== undefined) this.#startSweeping();
  }

  /** How many sessions are open (on PostgreSQL: held by this instance). */
  get size(): number {
    return this.#sessions.size;
  }

  /**
   * Whether this request belongs to the session layer: it names a session, or opens one
   * (`initialize`). Other 2025 requests are served statelessly.
   */
  claims(request: Request, body: unknown): boolean {
    if (request.headers.has('mcp-session-id')) return true;
    // The method first: the full check parses the body against the initialize schema, which
    // costs every other request several microseconds to fail.
    return (
      typeof body === 'object' &&
      body !== null &&
      'method' in body &&
      body.method === 'initialize' &&
      isInitializeRequest(body)
    );
  }

  /** Serves a request of a session, or the `initialize` that opens one. */
  async handle(request: Request, principal: McpPrincipal, body: unknown): Promise<Response> {
    const options = body === undefined ? {} : { parsedBody: body };
    const sessionId = request.headers.get('mcp-session-id');
    if (sessionId !== null) {
      let session: Session | Response | undefined = this.#sessions.get(sessionId);
      const held = session !== undefined;
      if (session === undefined && this.#shared !== undefined) {
        session = await this.#restore(request, sessionId, principal);
      }
      if (session instanceof Response) return session;
      // Another principal's session is as unknown as a closed one.
      if (session === undefined || session.owner !== principalKey(principal)) {
        return sessionNotFound();
      }
      if (held && !(await this.#stillOpen(session))) return sessionNotFound();
      this.#used(session);
      const versioned = withSessionVersion(request, session.server);
      const serving = session;
      if (request.method === 'GET') {
        // Resuming the stream of a call another instance runs: followed in the database.
        const followed = await this.#shared?.follow(
          serving.id,
          request,
          this.#options.followStreamMs ?? 10 * 60_000,
        );
        if (followed !== undefined) return followed;
        return this.#listened(serving, await serving.transport.handleRequest(versioned, options));
      }
      // A DELETE is no request of the client's own to count.
      if (request.method !== 'POST') return serving.transport.handleRequest(versioned, options);
      return this.#tracked(serving, () => serving.transport.handleRequest(versioned, options));
    }
    const owner = principalKey(principal);
    this.#opening.set(owner, (this.#opening.get(owner) ?? 0) + 1);
    this.#openingTotal += 1;
    try {
      if (this.#shared !== undefined) {
        return await this.#openShared(this.#shared, request, principal, body, options);
      }
      const refused = this.#makeRoom(owner, body);
      if (refused !== undefined) return refused;
      const transport = await this.#open(principal, () => crypto.randomUUID(), localLogLevel());
      // The transport registers the session (onsessioninitialized) before it answers.
      return await transport.handleRequest(request, options);
    } finally {
      this.#openingTotal -= 1;
      const left = (this.#opening.get(owner) ?? 1) - 1;
      if (left === 0) this.#opening.delete(owner);
      else this.#opening.set(owner, left);
    }
  }

  /**
   * Tells the sessions of the principals `change` selects that their tools changed. On
   * PostgreSQL every instance hears it and tells the sessions whose GET stream it holds.
   */
  toolsChanged(change: ToolsChange): void {
    if (this.#shared !== undefined) this.#shared.toolsChanged(change);
    else this.#tellToolsChanged(change, false);
  }

  /** Closes every session this instance holds (the gateway is stopping). */
  async closeAll(): Promise<void> {
    if (this.#sweeper !== undefined) clearInterval(this.#sweeper);
    this.#sweeper = undefined;
    const sessions = [...this.#sessions.values()];
    for (const session of sessions) this.#remove(session);
    await Promise.all(sessions.map((session) => this.#close(session)));
    await this.#shared?.stop();
  }

  async #openShared(
    shared: SharedSessions,
    request: Request,
    principal: McpPrincipal,
    body: unknown,
    options: { parsedBody?: unknown },
  ): Promise<Response> {
    const owner = principalKey(principal);
    const id = crypto.randomUUID();
    await shared.ensureListening();
    const reserved = await shared.reserve(
      { id, owner, initParams: initializeParams(body) },
      this.#options.maxSessionsPerUser,
      (held) => (this.#sessions.get(held)?.inFlight ?? 0) > 0,
    );
    if (!reserved.ok) {
      this.#options.logger?.warn('MCP session refused: every session of the principal is busy', {
        principal: owner,
        sessions: reserved.held,
      });
      return tooManySessions(
        body,
        `Too many MCP sessions: you hold ${reserved.held}, the most one user may hold is ${this.#options.maxSessionsPerUser}, and each has a request in flight. Close sessions you no longer use (quit idle clients), or retry when a call finishes.`,
      );
    }
    for (const evicted of reserved.evicted) this.#dropCopy(evicted);
    await shared.announceClosed(reserved.evicted);
    const refused = this.#makeServerRoom(body);
    if (refused !== undefined) {
      await shared.close(id);
      return refused;
    }
    try {
      const transport = await this.#open(principal, () => id, shared.levelOf(id));
      const response = await transport.handleRequest(request, options);
      // An initialize the transport refused opened nothing.
      if (!this.#sessions.has(id)) await shared.close(id);
      return response;
    } catch (error) {
      this.#dropCopy(id);
      await shared.close(id).catch(() => {});
      throw error;
    }
  }

  /**
   * A new session's server and transport; `sessionId` names it. On PostgreSQL its transport
   * stores events in the database and routes answers between instances.
   */
  async #open(
    principal: McpPrincipal,
    sessionId: () => string,
    level: SessionLogLevel,
  ): Promise<WebStandardStreamableHTTPServerTransport> {
    const server = this.#options.createServer(principal, level);
    const shared = this.#shared;
    const id = sessionId();
    let receive: ((message: JSONRPCMessage) => void) | undefined;
    const transport: WebStandardStreamableHTTPServerTransport =
      new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => id,
        maxRequestBodySize: this.#options.maxBodyBytes,
        eventStore: shared?.eventStore(id, false) ?? new SessionEventStore(),
        retryInterval: RETRY_MS,
        onsessioninitialized: (opened) => {
          this.#add({ id: opened, principal, server, transport, level, receive });
        },
        onsessionclosed: (closed) => this.#closedByClient(closed),
      });
    await server.connect(transport);
    if (shared !== undefined) receive = routeAnswers(transport, shared.routing(id));
    return transport;
  }

  /**
   * Rebuilds session `id` of `principal` from the database: a fresh server and transport are
   * given the client's `initialize` again, with the session's id, and its log level. Nothing of
   * the replay reaches the client or the event store. Undefined when there is no such session
   * or it is another principal's.
   */
  #restore(
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
    if (shared === undefined) return undefined;
    const stored = await shared.load(id);
    if (stored === undefined || stored.owner !== principalKey(principal)) return undefined;
    this.#openingTotal += 1;
    const refused = this.#makeServerRoom(undefined);
    this.#openingTotal -= 1;
    if (refused !== undefined) return refused;
    await shared.ensureListening();
    const rebuilt = await rebuildSession(stored, {
      shared,
      principal,
      createServer: this.#options.createServer,
      maxBodyBytes: this.#options.maxBodyBytes,
      retryMs: RETRY_MS,
      onClosed: (closed) => this.#closedByClient(closed),
      url: request.url,
    });
    return rebuilt === undefined ? undefined : this.#add({ id, principal, ...rebuilt });
  }

  #add(parts: {
    id: string;
    principal: McpPrincipal;
    server: Server;
    transport: WebStandardStreamableHTTPServerTransport;
    level: SessionLogLevel;
    receive: ((message: JSONRPCMessage) => void) | undefined;
  }): Session {
    const session: Session = {
      ...parts,
      owner: principalKey(parts.principal),
      lastSeen: Date.now(),
      inFlight: 0,
      listening: 0,
    };
    this.#sessions.set(session.id, session);
    this.#owners.add(session);
    this.#startSweeping();
    return session;
  }

  /** The client ended session `id` (`DELETE`): on PostgreSQL, on every instance. */
  async #closedByClient(id: string): Promise<void> {
    const session = this.#sessions.get(id);
    if (session !== undefined) {
      this.#remove(session);
      void this.#close(session);
    }
    await this.#shared?.close(id);
  }

  /**
   * On PostgreSQL, whether the session this instance holds a copy of is still open, since a
   * `DELETE` or an expiry on another instance is announced a moment later; and its stored log
   * level, which another instance may have set just now. One primary-key read per request of a
   * 2025 session; nothing on SQLite.
   */
  async #stillOpen(session: Session): Promise<boolean> {
    if (this.#shared === undefined) return true;
    const stored = await this.#shared.load(session.id);
    if (stored === undefined) {
      this.#dropCopy(session.id);
      return false;
    }
    const level = asLogLevel(stored.logLevel);
    if (level !== undefined) session.level.follow?.(level);
    return true;
  }

  /** What another instance said (see `BusMessage`). */
  #heard(message: BusMessage, fromSelf: boolean): void {
    if (message.kind === 'tools') {
      this.#tellToolsChanged(message.change, true);
      return;
    }
    const session = this.#sessions.get(message.sessionId);
    if (session === undefined) return;
    switch (message.kind) {
      case 'closed':
        this.#dropCopy(session.id);
        break;
      case 'answer':
        if (message.to === this.#shared?.instance) deliver(session, message.message);
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

  #tellToolsChanged(change: ToolsChange, onlyListening: boolean): void {
    const affected = affectedBy(change);
    for (const session of this.#sessions.values()) {
      if (onlyListening && session.listening === 0) continue;
      if (!affected(session.principal)) continue;
      session.server.sendToolListChanged().catch(() => {});
    }
  }

  /** Drops this instance's copy of session `id`; the session itself lives on elsewhere. */
  #dropCopy(id: string): void {
    const session = this.#sessions.get(id);
    if (session === undefined) return;
    this.#remove(session);
    void this.#close(session);
  }

  #used(session: Session): void {
    session.lastSeen = Date.now();
    this.#sessions.delete(session.id);
    this.#sessions.set(session.id, session);
    this.#owners.touch(session);
    this.#shared?.seen(session.id);
  }

  /**
   * Closes sessions so one more fits for `owner`: first their own least recently used idle one
   * when they are at their cap, then, at the overall cap, one of the largest holder's. A
   * 429 answer when nothing can go because every candidate has a request in flight.
   */
  #makeRoom(owner: string, body: unknown): Response | undefined {
    const { maxSessionsPerUser } = this.#options;
    while (this.#owners.count(owner) + (this.#opening.get(owner) ?? 0) > maxSessionsPerUser) {
      const victim = this.#owners.leastRecentlyUsedIdle(owner);
      if (victim === undefined) {
        this.#options.logger?.warn('MCP session refused: every session of the principal is busy', {
          principal: owner,
          sessions: this.#owners.count(owner),
        });
        return tooManySessions(
          body,
          `Too many MCP sessions: you hold ${this.#owners.count(owner)} on this server, the most one user may hold is ${maxSessionsPerUser}, and each has a request in flight. Close sessions you no longer use (quit idle clients), or retry when a call finishes.`,
        );
      }
      this.#evict(victim, 'per_user_cap');
    }
    return this.#makeServerRoom(body);
  }

  /** At the overall cap, closes (on PostgreSQL: drops the copy of) the largest holder's session. */
  #makeServerRoom(body: unknown): Response | undefined {
    const { maxSessions } = this.#options;
    while (this.#sessions.size + this.#openingTotal > maxSessions) {
      const victim = this.#owners.idleOfLargestHolder();
      if (victim === undefined) {
        this.#options.logger?.warn('MCP session refused: the server is at its session cap', {
          sessions: this.#sessions.size,
        });
        return tooManySessions(
          body,
          `Too many MCP sessions on this server: all ${this.#sessions.size} have a request in flight. Retry when a call finishes.`,
        );
      }
      this.#evict(victim, 'server_cap');
    }
    return undefined;
  }

  #evict(session: Session, reason: 'per_user_cap' | 'server_cap'): void {
    this.#options.logger?.info('MCP session closed to make room for a new one', {
      principal: session.owner,
      reason,
    });
    this.#remove(session);
    void this.#close(session);
  }

  #remove(session: Session): void {
    this.#sessions.delete(session.id);
    this.#owners.remove(session);
    this.#shared?.forget(session.id);
  }

  /** Runs one POST of `session`, which counts as busy until its answer has been sent. */
  async #tracked(session: Session, run: () => Promise<Response>): Promise<Response> {
    session.inFlight += 1;
    let response: Response;
    try {
      response = await run();
    } catch (error) {
      session.inFlight -= 1;
      throw error;
    }
    return whenSent(response, () => {
      session.inFlight -= 1;
    });
  }

  /** `response` to a GET, counting its stream as listening until it ends. */
  #listened(session: Session, response: Response): Response {
    if (response.status !== 200 || response.body === null) return response;
    session.listening += 1;
    return whenSent(response, () => {
      session.listening -= 1;
    });
  }

  #startSweeping(): void {
    if (this.#sweeper !== undefined) return;
    // A short idle time (tests) is swept at least twice within it.
    const every = Math.min(SWEEP_EVERY_MS, Math.max(50, this.#options.idleMs / 2));
    this.#sweeper = setInterval(() => this.#sweep(), every);
    this.#sweeper.unref?.();
  }

  #sweep(): void {
    const shared = this.#shared !== undefined;
    const cutoff = Date.now() - this.#options.idleMs;
    const busy: string[] = [];
    for (const session of this.#sessions.values()) {
      // A call longer than the idle time (an approval waited on) is no idle session; on
      // PostgreSQL neither is a client listening here, which other instances cannot see.
      const inUse = session.inFlight > 0 || (shared && session.listening > 0);
      if (inUse && shared) busy.push(session.id);
      // Oldest first: on one instance the first session still in use ends the sweep.
      if (session.lastSeen > cutoff) {
        if (shared) continue;
        break;
      }
      if (inUse) continue;
      this.#remove(session);
      void this.#close(session);
    }
    if (this.#shared !== undefined) {
      // Listening again if the connection was lost, while there are copies to tell about.
      if (this.#sessions.size > 0) void this.#shared.ensureListening();
      this.#shared.sweep(busy).catch((error: unknown) => {
        this.#options.logger?.warn('MCP session sweep failed', {
          error: error instanceof Error ? error.message : String(error),
        });
      });
    } else if (this.#sessions.size === 0 && this.#sweeper !== undefined) {
      clearInterval(this.#sweeper);
      this.#sweeper = undefined;
    }
  }

  async #close(session: Session): Promise<void> {
    await session.transport.close().catch(() => {});
    await session.server.close().catch(() => {});
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
