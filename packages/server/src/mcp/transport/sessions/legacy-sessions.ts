import {
  isInitializeRequest,
  type JSONRPCMessage,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { ServerLogger } from '../../../http/logger.js';
import type { SessionState } from '../../../identity/index.js';
import { type McpPrincipal, principalKey } from '../../principal.js';
import { localLogLevel, type SessionLogLevel } from '../create-server.js';
import { hearCancels, SessionCalls } from '../session-calls.js';
import { isPlainLegacyRequest, sessionNotFound } from '../session-http.js';
import { routeAnswers, type SharedSessions, type ToolsChange } from '../shared-sessions/index.js';
import { Admission } from './admission.js';
import { HeldSessions } from './held-sessions.js';
import { IdleSweeper, type SweepTimer } from './idle-sweeper.js';
import { closeSession, RETRY_MS, type Session, type SessionParts } from './session.js';
import { SessionEventStore } from './session-event-store.js';
import { type SessionPost, serveSessionRequest } from './session-requests.js';
import { SharedBridge } from './shared-bridge.js';
import { type ServedChanged, tellToolsChanged } from './tools-change.js';

/** Options of {@link LegacySessions}. */
export interface LegacySessionsOptions {
  /** A fresh server for a session of `principal`, reading its log level from `level`. */
  createServer: (principal: McpPrincipal, level: SessionLogLevel) => Promise<Server>;
  /**
   * Where the principal authenticated for each request a session serves is noted, by the request
   * its transport is given, for the session's handlers (see `McpRuntime.requestPrincipals`).
   */
  requestPrincipals?: WeakMap<Request, McpPrincipal>;
  /** How long a session may go unused before it is closed. */
  idleMs: number;
  /** The most sessions kept at once, a memory guard; at it, the largest holder gives one up. */
  maxSessions: number;
  /** The most sessions one principal (a user, a service account) may hold. */
  maxSessionsPerUser: number;
  /** PostgreSQL: the most copies rebuilt here of sessions opened elsewhere. Default 1,000. */
  maxRebuiltSessions?: number;
  /** PostgreSQL: a rebuilt copy unused this long is dropped. Default 2 minutes. */
  rebuiltIdleMs?: number;
  /** The largest request body a session's transport reads. */
  maxBodyBytes: number;
  /** Where refusals, evictions and closes are logged. */
  logger?: Pick<ServerLogger, 'info' | 'warn'>;
  /** PostgreSQL: sessions live in the database and any instance serves any of them. */
  shared?: SharedSessions;
  /**
   * How long a client resuming a tool call's stream on an instance that does not run the call
   * is kept following it (a tool's time limit plus the time it may wait for the user).
   */
  followStreamMs?: number;
  /**
   * Whether what `session` is served changed since its client last listed its tools (a catalog
   * change is announced only then). Default: always.
   */
  servedChanged?: ServedChanged;
  /**
   * Answers a POST of `session` without its transport when it can (a plain `tools/list` or
   * `tools/call`, see mcp/list-answer.ts and mcp/session-call.ts), else undefined: the transport
   * answers.
   */
  answerDirectly?: (session: Session, post: SessionPost) => Promise<Response | undefined>;
  /** What runs the idle sweeps (see `IdleSweeperOptions`). Default an interval. */
  sweepTimer?: SweepTimer;
}

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
 * Copies rebuilt here of sessions opened elsewhere are capped apart (`maxRebuiltSessions`: the
 * least recently used idle one goes) and dropped once idle for `rebuiltIdleMs`, so a balancer
 * that moves sessions around cannot make every instance hold every session.
 *
 * The parts, in this folder: `HeldSessions` (the sessions held here, in order of use),
 * `Admission` (the caps), `IdleSweeper` (idle expiry), `serveSessionRequest` (one session's
 * requests), `SharedBridge` (PostgreSQL) and `tellToolsChanged` (tool list changes).
 */
export class LegacySessions {
  readonly #options: LegacySessionsOptions;
  readonly #shared: SharedSessions | undefined;
  readonly #held: HeldSessions;
  readonly #admission: Admission;
  readonly #sweeper: IdleSweeper;
  /** PostgreSQL only. */
  readonly #bridge: SharedBridge | undefined;

  constructor(options: LegacySessionsOptions) {
    this.#options = options;
    this.#shared = options.shared;
    this.#held = new HeldSessions(options.shared);
    this.#admission = new Admission(this.#held, options);
    this.#sweeper = new IdleSweeper(this.#held, options);
    if (options.shared !== undefined) {
      const bridge = new SharedBridge({
        shared: options.shared,
        held: this.#held,
        admission: this.#admission,
        createServer: options.createServer,
        maxBodyBytes: options.maxBodyBytes,
        maxSessionsPerUser: options.maxSessionsPerUser,
        maxRebuilt: options.maxRebuiltSessions ?? 1000,
        followStreamMs: options.followStreamMs ?? 10 * 60_000,
        logger: options.logger,
        servedChanged: options.servedChanged,
        open: (principal, sessionId, level) => this.#open(principal, sessionId, level),
        add: (parts) => this.#add(parts, true),
        closedByClient: (id) => this.#closedByClient(id),
      });
      this.#bridge = bridge;
      options.shared.onMessage((message, fromSelf) => bridge.heard(message, fromSelf));
      this.#sweeper.start();
    }
  }

  /** The server of session `id` held here (on PostgreSQL, this instance's copy), if any. */
  serverOf(id: string): Server | undefined {
    return this.#held.get(id)?.server;
  }

  /** How many sessions are open (on PostgreSQL: held by this instance). */
  get size(): number {
    return this.#held.size;
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

  /**
   * Serves a request of a session, or the `initialize` that opens one. Answers 404 for a session
   * that is unknown, closed or another principal's, 429 when the session caps leave no room.
   * Rejects when the session's transport does, or on PostgreSQL the database. `read`: the
   * session's row as the request's token lookup read it (PostgreSQL), which spares a read.
   * `plain`: whether the body is a plain 2025 request (`isPlainLegacyRequest`); worked out here
   * when the caller has not asked already.
   */
  async handle(
    request: Request,
    principal: McpPrincipal,
    body: unknown,
    read?: SessionState,
    plain = isPlainLegacyRequest(request, body),
  ): Promise<Response> {
    const options = body === undefined ? {} : { parsedBody: body };
    const sessionId = request.headers.get('mcp-session-id');
    if (sessionId !== null) {
      let session: Session | Response | undefined = this.#held.get(sessionId);
      const held = session !== undefined;
      if (session === undefined && this.#bridge !== undefined) {
        session = await this.#bridge.restore(request, sessionId, principal);
      }
      if (session instanceof Response) return session;
      // Another principal's session is as unknown as a closed one, and so is one the same user
      // opened through another endpoint: it serves that endpoint's tools, not this one's.
      if (session === undefined || !sameCaller(session.principal, principal)) {
        return sessionNotFound();
      }
      // On PostgreSQL a copy held here may have been closed on another instance.
      if (held && this.#bridge !== undefined && !(await this.#bridge.stillOpen(session, read))) {
        return sessionNotFound();
      }
      this.#held.used(session);
      const found = session;
      const principals = this.#options.requestPrincipals;
      const viaTransport = (serving?: (served: Request) => void, gatherMs?: number) =>
        serveSessionRequest(
          found,
          request,
          options,
          this.#bridge,
          (served) => {
            principals?.set(served, principal);
            serving?.(served);
          },
          gatherMs,
        );
      const direct = await this.#options.answerDirectly?.(session, {
        request,
        body,
        plain,
        principal,
        viaTransport,
      });
      return direct ?? viaTransport();
    }
    const owner = principalKey(principal);
    return this.#admission.whileOpening(owner, async () => {
      if (this.#bridge !== undefined) {
        return await this.#bridge.openShared(request, principal, body, options);
      }
      const refused = this.#admission.makeRoom(owner, body);
      if (refused !== undefined) return refused;
      const transport = await this.#open(principal, () => crypto.randomUUID(), localLogLevel());
      // The transport registers the session (onsessioninitialized) before it answers.
      return await transport.handleRequest(request, options);
    });
  }

  /**
   * Tells the sessions of the principals `change` selects that their tools changed. On
   * PostgreSQL every instance hears it and tells the sessions whose GET stream it holds.
   * Never throws.
   */
  toolsChanged(change: ToolsChange): void {
    if (this.#shared !== undefined) this.#shared.toolsChanged(change);
    else tellToolsChanged(this.#held.values(), change, false, this.#options.servedChanged);
  }

  /**
   * Ends the standalone GET stream of every session held here, as the 2025 transport allows: the
   * client reconnects after the stream's `retry` interval, and through a balancer reaches another
   * instance while this one drains (on PostgreSQL that one rebuilds the session). The sessions
   * stay open. Never throws.
   */
  closeStreams(): void {
    for (const session of this.#held.values()) {
      try {
        session.transport.closeStandaloneSSEStream();
      } catch {
        // A transport already closed has no stream to end.
      }
    }
  }

  /**
   * Closes every session this instance holds (the gateway is stopping). Rejects when the shared
   * sessions' listening connection fails to close.
   */
  async closeAll(): Promise<void> {
    this.#sweeper.stop();
    const sessions = [...this.#held.values()];
    for (const session of sessions) this.#held.remove(session);
    await Promise.all(sessions.map((session) => closeSession(session)));
    await this.#shared?.stop();
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
    const server = await this.#options.createServer(principal, level);
    const shared = this.#shared;
    const id = sessionId();
    let receive: ((message: JSONRPCMessage) => void) | undefined;
    const events = shared?.eventStore(id, false, true);
    const calls = new SessionCalls();
    const transport: WebStandardStreamableHTTPServerTransport =
      new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => id,
        maxRequestBodySize: this.#options.maxBodyBytes,
        eventStore: events ?? new SessionEventStore(),
        retryInterval: RETRY_MS,
        onsessioninitialized: (opened) => {
          this.#add({ id: opened, principal, server, transport, level, receive, events, calls });
        },
        onsessionclosed: (closed) => this.#closedByClient(closed),
      });
    await server.connect(transport);
    hearCancels(transport, calls);
    if (shared !== undefined) receive = routeAnswers(transport, shared.routing(id));
    return transport;
  }

  #add(parts: SessionParts, rebuilt = false): Session {
    const session: Session = {
      ...parts,
      owner: principalKey(parts.principal),
      lastSeen: Date.now(),
      inFlight: 0,
      listening: 0,
      rebuilt,
    };
    this.#held.add(session);
    this.#sweeper.start();
    return session;
  }

  /** The client ended session `id` (`DELETE`): on PostgreSQL, on every instance. */
  async #closedByClient(id: string): Promise<void> {
    const session = this.#held.get(id);
    if (session !== undefined) {
      this.#held.remove(session);
      void closeSession(session);
    }
    await this.#shared?.close(id);
  }
}

/**
 * Whether `asking` may use a session `held` opened: the same principal (the session's `owner`,
 * `principalKey(held)`) through the same MCP endpoint, if any (a service account comes through
 * none). Compared field by field: building the key of every request's principal cost each
 * session request a string and its comparison (issue 37).
 */
export function sameCaller(held: McpPrincipal, asking: McpPrincipal): boolean {
  if (asking.kind === 'user') {
    return (
      held.kind === 'user' && held.userId === asking.userId && held.endpointId === asking.endpointId
    );
  }
  return held.kind === 'service_account' && held.serviceAccountId === asking.serviceAccountId;
}
