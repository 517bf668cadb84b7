import {
  isInitializeRequest,
  type Server,
  SUPPORTED_PROTOCOL_VERSIONS,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { ServerLogger } from '../http/logger.js';
import { type McpPrincipal, principalKey } from './principal.js';
import { SessionEventStore } from './session-event-store.js';
import { SessionOwners } from './session-owners.js';

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
}

/** Options of {@link LegacySessions}. */
export interface LegacySessionsOptions {
  /** A fresh server for a new session of `principal`. */
  createServer: (principal: McpPrincipal) => Server;
  idleMs: number;
  /** The most sessions kept at once, a memory guard; at it, the largest holder gives one up. */
  maxSessions: number;
  /** The most sessions one principal (a user, a service account) may hold. */
  maxSessionsPerUser: number;
  maxBodyBytes: number;
  logger?: Pick<ServerLogger, 'info' | 'warn'>;
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
 *
 * Sessions are capped per principal (`maxSessionsPerUser`): a principal at the cap that opens
 * another gives up its own least recently used idle session, never anyone else's; when all of
 * theirs have a request in flight, the new `initialize` answers 429. The overall cap
 * (`maxSessions`) guards memory: at it, the principal holding the most sessions gives one up.
 * A request costs O(1) bookkeeping; making room costs O(sessions of the principal).
 */
export class LegacySessions {
  readonly #options: LegacySessionsOptions;
  /** In order of last use, oldest first (a Map keeps insertion order). */
  readonly #sessions = new Map<string, Session>();
  readonly #owners = new SessionOwners<Session>();
  /** `initialize` requests being answered, by principal: sessions about to exist. */
  readonly #opening = new Map<string, number>();
  #openingTotal = 0;
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
      this.#owners.touch(session);
      const versioned = withSessionVersion(request, session.server);
      // A GET is the client listening for whatever comes, which is no request of its own.
      if (request.method !== 'POST') return session.transport.handleRequest(versioned, options);
      return this.#tracked(session, () => session.transport.handleRequest(versioned, options));
    }
    const owner = principalKey(principal);
    const refused = this.#makeRoom(owner, body);
    if (refused !== undefined) return refused;
    this.#opening.set(owner, (this.#opening.get(owner) ?? 0) + 1);
    this.#openingTotal += 1;
    try {
      const transport = await this.#open(principal);
      // The transport registers the session (onsessioninitialized) before it answers.
      return await transport.handleRequest(request, options);
    } finally {
      this.#openingTotal -= 1;
      const left = (this.#opening.get(owner) ?? 1) - 1;
      if (left === 0) this.#opening.delete(owner);
      else this.#opening.set(owner, left);
    }
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
    for (const session of sessions) this.#remove(session);
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
          const session: Session = {
            id,
            owner,
            principal,
            server,
            transport,
            lastSeen: Date.now(),
            inFlight: 0,
          };
          this.#sessions.set(id, session);
          this.#owners.add(session);
          this.#startSweeping();
        },
        onsessionclosed: (id) => {
          const session = this.#sessions.get(id);
          if (session === undefined) return;
          this.#remove(session);
          void this.#close(session);
        },
      });
    await server.connect(transport);
    return transport;
  }

  /**
   * Closes sessions so one more fits for `owner`: first their own least recently used idle one
   * when they are at their cap, then, at the overall cap, one of the largest holder's. A
   * 429 answer when nothing can go because every candidate has a request in flight.
   */
  #makeRoom(owner: string, body: unknown): Response | undefined {
    const { maxSessionsPerUser, maxSessions } = this.#options;
    while (this.#owners.count(owner) + (this.#opening.get(owner) ?? 0) >= maxSessionsPerUser) {
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
    while (this.#sessions.size + this.#openingTotal >= maxSessions) {
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

  #startSweeping(): void {
    if (this.#sweeper !== undefined) return;
    this.#sweeper = setInterval(() => {
      const cutoff = Date.now() - this.#options.idleMs;
      for (const session of this.#sessions.values()) {
        // Oldest first: the first session still in use ends the sweep.
        if (session.lastSeen > cutoff) break;
        // A call longer than the idle time (an approval waited on) is no idle session.
        if (session.inFlight > 0) continue;
        this.#remove(session);
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

/**
 * `response` with `done` called once its body has been sent, or cancelled because the client
 * went away (at once when it has none: a 202 for notifications).
 */
function whenSent(response: Response, done: () => void): Response {
  const source = response.body;
  if (source === null) {
    done();
    return response;
  }
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    done();
  };
  const reader = source.getReader();
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const chunk = await reader.read();
          if (chunk.done) {
            finish();
            controller.close();
          } else controller.enqueue(chunk.value);
        } catch (error) {
          finish();
          controller.error(error);
        }
      },
      cancel(reason) {
        finish();
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/** HTTP 429 with a JSON-RPC error answering the `initialize` in `body`. */
function tooManySessions(body: unknown, message: string): Response {
  const id =
    typeof body === 'object' &&
    body !== null &&
    'id' in body &&
    (typeof body.id === 'string' || typeof body.id === 'number')
      ? body.id
      : null;
  return Response.json({ jsonrpc: '2.0', error: { code: -32000, message }, id }, { status: 429 });
}

function sessionNotFound(): Response {
  return Response.json(
    { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null },
    { status: 404 },
  );
}
