import {
  isInitializeRequest,
  type Server,
  SUPPORTED_PROTOCOL_VERSIONS,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { type McpPrincipal, principalKey } from './principal.js';
import { SessionEventStore } from './session-event-store.js';

interface Session {
  id: string;
  /** The principal that opened it: only the same principal may use it. */
  owner: string;
  principal: McpPrincipal;
  server: Server;
  transport: WebStandardStreamableHTTPServerTransport;
  lastSeen: number;
}

/** Options of {@link LegacySessions}. */
export interface LegacySessionsOptions {
  /** A fresh server for a new session of `principal`. */
  createServer: (principal: McpPrincipal) => Server;
  idleMs: number;
  maxSessions: number;
  maxBodyBytes: number;
}

const SWEEP_EVERY_MS = 60_000;
/** How long a client whose SSE stream closed should wait before reconnecting. */
const RETRY_MS = 1000;

/**
 * The 2025-revision sessions (`initialize`, `Mcp-Session-Id`) this instance serves. A session
 * keeps its server and transport, so the server can send requests to the client
 * (`elicitation/create`) and notifications (`tools/list_changed`). Sessions live in memory: a
 * session id this instance does not know answers 404 and the client starts a new session, as the
 * 2025 transport specifies. Behind a load balancer, 2025 clients need session affinity
 * (`Mcp-Session-Id`); 2026-07-28 clients need none.
 */
export class LegacySessions {
  readonly #options: LegacySessionsOptions;
  /** In order of last use, oldest first (a Map keeps insertion order). */
  readonly #sessions = new Map<string, Session>();
  #sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(options: LegacySessionsOptions) {
    this.#options = options;
  }

  /** How many sessions are open. */
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
      const session = this.#sessions.get(sessionId);
      // Another principal's session is as unknown as a closed one.
      if (session === undefined || session.owner !== principalKey(principal)) {
        return sessionNotFound();
      }
      session.lastSeen = Date.now();
      this.#sessions.delete(sessionId);
      this.#sessions.set(sessionId, session);
      return session.transport.handleRequest(withSessionVersion(request, session.server), options);
    }
    const transport = await this.#open(principal);
    return transport.handleRequest(request, options);
  }

  /** Tells every open session (or those of the principals `affected` picks) that its tools changed. */
  toolsChanged(affected?: (principal: McpPrincipal) => boolean): void {
    for (const session of this.#sessions.values()) {
      if (affected !== undefined && !affected(session.principal)) continue;
      session.server.sendToolListChanged().catch(() => {});
    }
  }

  /** Closes every session (the gateway is stopping). */
  async closeAll(): Promise<void> {
    if (this.#sweeper !== undefined) clearInterval(this.#sweeper);
    this.#sweeper = undefined;
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.all(sessions.map((session) => this.#close(session)));
  }

  async #open(principal: McpPrincipal): Promise<WebStandardStreamableHTTPServerTransport> {
    const server = this.#options.createServer(principal);
    const owner = principalKey(principal);
    const transport: WebStandardStreamableHTTPServerTransport =
      new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        maxRequestBodySize: this.#options.maxBodyBytes,
        eventStore: new SessionEventStore(),
        retryInterval: RETRY_MS,
        onsessioninitialized: (id) => {
          this.#evictOverflow();
          this.#sessions.set(id, {
            id,
            owner,
            principal,
            server,
            transport,
            lastSeen: Date.now(),
          });
          this.#startSweeping();
        },
        onsessionclosed: (id) => {
          const session = this.#sessions.get(id);
          this.#sessions.delete(id);
          if (session !== undefined) void this.#close(session);
        },
      });
    await server.connect(transport);
    return transport;
  }

  #evictOverflow(): void {
    while (this.#sessions.size >= this.#options.maxSessions) {
      const oldest = this.#sessions.values().next().value;
      if (oldest === undefined) return;
      this.#sessions.delete(oldest.id);
      void this.#close(oldest);
    }
  }

  #startSweeping(): void {
    if (this.#sweeper !== undefined) return;
    this.#sweeper = setInterval(() => {
      const cutoff = Date.now() - this.#options.idleMs;
      for (const session of this.#sessions.values()) {
        // Oldest first: the first session still in use ends the sweep.
        if (session.lastSeen > cutoff) break;
        this.#sessions.delete(session.id);
        void this.#close(session);
      }
      if (this.#sessions.size === 0 && this.#sweeper !== undefined) {
        clearInterval(this.#sweeper);
        this.#sweeper = undefined;
      }
    }, SWEEP_EVERY_MS);
    this.#sweeper.unref?.();
  }

  async #close(session: Session): Promise<void> {
    await session.transport.close().catch(() => {});
    await session.server.close().catch(() => {});
  }
}

/**
 * `request` with the `MCP-Protocol-Version` the session negotiated at `initialize`. The transport
 * reads the header to decide whether a stream can be resumed (a priming event, closing it
 * mid-call); what a session's client can do was settled when it initialized, and the spec lets a
 * server rely on that version. An unsupported header is left for the transport to refuse.
 */
function withSessionVersion(request: Request, server: Server): Request {
  const negotiated = server.getNegotiatedProtocolVersion();
  const sent = request.headers.get('mcp-protocol-version');
  if (
    negotiated === undefined ||
    sent === negotiated ||
    (sent !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(sent))
  ) {
    return request;
  }
  const headers = new Headers(request.headers);
  headers.set('mcp-protocol-version', negotiated);
  // The body was read already and travels as `parsedBody`.
  return new Request(request.url, { method: request.method, headers, signal: request.signal });
}

function sessionNotFound(): Response {
  return Response.json(
    { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null },
    { status: 404 },
  );
}
