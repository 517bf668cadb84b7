import type { IncomingMessage } from 'node:http';
import {
  createMcpHandler,
  isJsonContentType,
  isLegacyRequest,
  type Server,
} from '@modelcontextprotocol/server';
import type { SessionState } from '../../identity/index.js';
import { nestedDeeperThan, nestsWithin } from '../../json/nesting.js';
import type { FederatedSource } from '../../upstream/federation.js';
import { namespacedUri } from '../../upstream/namespaced-names.js';
import type { UpstreamNotice } from '../../upstream/notice.js';
import { type CallTimer, realCallTimer } from '../call-timer.js';
import { META_TOOLS, SearchWarmer, searchIndexOf } from '../discovery/index.js';
import { SessionNotices, visibleSources } from '../federation/index.js';
import { type McpOptions, resolveMcpOptions } from '../options.js';
import type { McpPrincipal } from '../principal.js';
import { createRoundStateCodec } from '../request-state.js';
import type { McpDeps, McpRuntime } from '../runtime.js';
import { toolsOf } from '../runtime.js';
import { ServedTools } from '../served-tools.js';
import { ToolIndexCache } from '../tool-list.js';
import { createToolServer } from './create-server.js';
import { DirectCalls, directCallOf } from './direct-call.js';
import { answerSessionList, answerSessionlessList } from './list-answer.js';
import { ListenStreams } from './listen-streams.js';
import { readBody } from './read-body.js';
import { answerSessionCall } from './session-call.js';
import { isPlainLegacyRequest } from './session-http.js';
import { LegacySessions, type SweepTimer } from './sessions/index.js';
import { SharedSessions } from './shared-sessions/index.js';
import type { ToolsChange } from './shared-sessions/session-bus.js';

/** Where the endpoint runs, and what only the tests give it. */
export interface McpDeployment {
  /** PostgreSQL: the database's URL, for the session bus's listening connection. */
  postgresUrl?: string;
  /** What runs the 2025 sessions' idle sweeps (tests run each one themselves). Default a timer. */
  sessionSweepTimer?: SweepTimer;
  /** What runs each call's time limit (tests fire it themselves). Default a `setTimeout`. */
  callTimer?: CallTimer;
}

/**
 * The MCP endpoint (`{base_url}/mcp` and `{base_url}/mcp/<token>`): Streamable HTTP for the
 * 2026-07-28 revision (stateless, a small server per request) and the 2025 revisions (a session
 * per client, so the server can ask the client questions).
 *
 * A request reaches it through the gateway's front door (Host, Origin and body size checked, see
 * `requestGuard`) and `authenticate()` (the token, 401 with `WWW-Authenticate` when unknown);
 * here the content type and the body are checked, then the protocol runs.
 *
 * @example
 * const endpoint = new McpEndpoint(services, authSecret, maxBodyBytes, { toolTimeoutMs: 30_000 });
 * mountMcp(app, endpoint, authenticate);
 */
export class McpEndpoint {
  readonly #runtime: McpRuntime;
  readonly #principals = new WeakMap<Request, McpPrincipal>();
  readonly #handler: ReturnType<typeof createMcpHandler>;
  readonly #sessions: LegacySessions;
  readonly #stopWatching: () => void;
  /** The calls answered without the SDK (direct-call.ts), stopped when the endpoint closes. */
  readonly #direct: DirectCalls;
  /** The 2026-07-28 `subscriptions/listen` streams, told apart by caller. */
  readonly #listens: ListenStreams;
  /** The resources each `subscriptions/listen` request being served asks to watch. */
  readonly #listenRequests = new WeakMap<Request, readonly string[]>();
  /** PostgreSQL: the sessions and bus shared with the other instances. */
  readonly #shared: SharedSessions | undefined;

  constructor(
    services: McpDeps,
    authSecret: string,
    maxBodyBytes: number,
    options: McpOptions = {},
    deployment: McpDeployment = {},
  ) {
    const resolved = resolveMcpOptions(options, maxBodyBytes);
    this.#runtime = {
      services,
      options: resolved,
      callTimer: deployment.callTimer ?? realCallTimer,
      codec: createRoundStateCodec(authSecret, resolved.approvalTimeoutMs),
      tools: new ToolIndexCache({ toolName: resolved.toolName, logger: services.logger }),
      notices: new SessionNotices(),
      served: new ServedTools(),
      searches: new SearchWarmer(async (principal) => {
        const { index, mode } = await toolsOf(this.#runtime, principal);
        if (mode === 'discovery') searchIndexOf(index);
        return mode === 'discovery';
      }),
      requestPrincipals: new WeakMap(),
      handovers: new WeakMap(),
    };
    this.#direct = new DirectCalls(this.#runtime);
    const notices = this.#runtime.notices;
    this.#listens = new ListenStreams(this.#runtime, (uri) => notices.watches(uri));
    const onerror = (error: Error) =>
      services.logger.warn('MCP request rejected or failed', { error: error.message });
    const factory = (context: { era: 'legacy' | 'modern'; requestInfo?: Request }) =>
      this.#serverFor(context.era, context.requestInfo);
    // 2025 requests outside a session are served statelessly by the handler's own fallback: the
    // handler classifies each request once, where asking isLegacyRequest() first did it twice.
    this.#handler = createMcpHandler(factory, {
      legacy: 'stateless',
      bus: this.#listens,
      onerror,
      maxRequestBodySize: resolved.maxBodyBytes,
    });
    this.#shared =
      services.database.dialect === 'postgres' && deployment.postgresUrl !== undefined
        ? new SharedSessions({
            database: services.database,
            url: deployment.postgresUrl,
            logger: services.logger,
            idleMs: resolved.sessionIdleMs,
          })
        : undefined;
    this.#sessions = new LegacySessions({
      createServer: (principal, level) =>
        createToolServer(this.#runtime, principal, 'session', level),
      requestPrincipals: this.#runtime.requestPrincipals,
      idleMs: resolved.sessionIdleMs,
      maxSessions: resolved.maxSessions,
      maxSessionsPerUser: resolved.maxSessionsPerUser,
      maxRebuiltSessions: resolved.maxRebuiltSessions,
      rebuiltIdleMs: resolved.rebuiltSessionIdleMs,
      logger: services.logger,
      maxBodyBytes: resolved.maxBodyBytes,
      followStreamMs: resolved.toolTimeoutMs + resolved.approvalTimeoutMs,
      servedChanged: (session) =>
        this.#runtime.served.changed(session.server, async () => {
          const { index, mode } = await toolsOf(this.#runtime, session.principal);
          return mode === 'discovery' ? META_TOOLS : index.list;
        }),
      answerDirectly: (session, post) => {
        const method = methodOf(post.body);
        if (method === 'tools/call') return answerSessionCall(this.#runtime, session, post);
        if (method === 'tools/list') {
          return answerSessionList(this.#runtime, session, post.request, post.body);
        }
        return Promise.resolve(undefined);
      },
      ...(this.#shared === undefined ? {} : { shared: this.#shared }),
      ...(deployment.sessionSweepTimer === undefined
        ? {}
        : { sweepTimer: deployment.sessionSweepTimer }),
    });
    this.#stopWatching = this.#watchChanges();
  }

  /** The SDK's server for a 2026-07-28 request, or a 2025 one outside a session. */
  #serverFor(era: 'legacy' | 'modern', request: Request | undefined): Promise<Server> {
    const principal = request && this.#principals.get(request);
    if (principal === undefined) throw new Error('MCP request without an authenticated principal');
    const kind = era === 'modern' ? 'modern' : 'stateless';
    const watching = request && this.#listenRequests.get(request);
    if (watching === undefined) return createToolServer(this.#runtime, principal, kind);
    // A `subscriptions/listen` stream: what it hears is decided per caller (ListenStreams); on
    // PostgreSQL it also hears what was told on the other instances.
    return (async () => {
      await this.#shared?.ensureListening();
      const server = await createToolServer(this.#runtime, principal, kind);
      this.#listens.arm(server, principal, watching);
      return server;
    })();
  }

  /**
   * Tells the clients of every change of tools (catalog, policy, endpoints) and every notice of an
   * upstream's resources and prompts; on PostgreSQL, through the bus, the other instances too.
   * Answers a function that stops it.
   */
  #watchChanges(): () => void {
    const { services } = this.#runtime;
    const stopCatalog = services.plugins.onChange(() => this.toolsChanged({ kind: 'catalog' }));
    const stopPolicy = services.policy.onChange((change) => this.toolsChanged(change));
    const stopEndpoints = services.endpointScopes.onChange((endpointId) =>
      this.toolsChanged({ kind: 'endpoint', endpointId }),
    );
    // What upstreams say of their resources and prompts reaches the clients listening here and,
    // on PostgreSQL, those listening on the other instances (which tell their own).
    const stopNotices = services.upstreams.onNotice((source, notice) => {
      const shared = this.#shared;
      if (shared === undefined) {
        this.#tellNotice(source, notice);
        return;
      }
      const subscribers =
        notice.kind === 'resource_updated'
          ? this.#runtime.notices.subscribers(namespacedUri(source.namespace, notice.uri))
          : [];
      shared.notice(source.id, notice, subscribers).catch((error: unknown) => {
        services.logger.warn('upstream notice not shared with the other instances', {
          sourceId: source.id,
          error: error instanceof Error ? error.message : String(error),
        });
        this.#tellNotice(source, notice);
      });
    });
    // On PostgreSQL the listen streams hear tool changes made on any instance through the bus.
    this.#shared?.onTools((change) => {
      this.#listens.toolsChanged(change);
      this.#runtime.searches.changed();
    });
    this.#shared?.onNotice((sourceId, notice, sessions) => {
      const source = services.upstreams.federated(sourceId);
      if (source === undefined) return;
      this.#tellNotice(source, notice);
      if (notice.kind !== 'resource_updated') return;
      // Sessions that subscribed through the instance that heard it, whose copy here may hold
      // their GET stream.
      const uri = namespacedUri(source.namespace, notice.uri);
      for (const id of sessions) {
        const server = this.#sessions.serverOf(id);
        if (server !== undefined) this.#runtime.notices.tellCopy(server, uri);
      }
    });
    return () => {
      stopCatalog();
      stopPolicy();
      stopEndpoints();
      stopNotices();
    };
  }

  /**
   * Tells the clients whose tools `change` may change (and, on PostgreSQL, the other instances'
   * clients). Called on every catalog or policy change made here; the lazy endpoint calls it for
   * a change made before this endpoint was built.
   */
  toolsChanged(change: ToolsChange): void {
    if (this.#shared === undefined) this.#listens.toolsChanged(change);
    this.#sessions.toolsChanged(change);
    this.#runtime.searches.changed();
  }

  /** Passes an upstream's `notice` to the 2025 sessions and listen streams here it concerns. */
  #tellNotice(source: FederatedSource, notice: UpstreamNotice): void {
    void this.#runtime.notices.heard(
      (principal) => visibleSources(this.#runtime, principal),
      source,
      notice,
    );
    void this.#listens.heard(source, notice);
  }

  /** How many 2025 sessions this instance holds. */
  get sessionCount(): number {
    return this.#sessions.size;
  }

  /**
   * Answers one HTTP request to the endpoint for `principal`, whom `authenticate()` found;
   * `session`, the state of the request's 2025 session when the token's lookup read it;
   * `incoming`, Node's message of a request from the network, whose body is read from it when it
   * is whole there (`readBody`), and `afterSent`, its response's, which the message's end waits
   * for.
   */
  async handle(
    request: Request,
    principal: McpPrincipal,
    session?: SessionState,
    incoming?: IncomingMessage,
    afterSent?: (work: () => void) => void,
  ): Promise<Response> {
    const { options } = this.#runtime;

    let body: unknown;
    if (request.method === 'POST') {
      if (!isJsonContentType(request.headers.get('content-type'))) {
        return rpcError(415, -32000, 'Unsupported Media Type: send Content-Type: application/json');
      }
      // A body whole in Node's buffer is read at once: no turn for it.
      const reading = readBody(request, options.maxBodyBytes, incoming, afterSent);
      const read = reading instanceof Promise ? await reading : reading;
      if (read.tooLarge) {
        return rpcError(
          413,
          -32000,
          `Payload Too Large: the body must not exceed ${options.maxBodyBytes} bytes`,
        );
      }
      if (!('text' in read))
        return rpcError(400, -32700, 'Parse error: the body is not valid UTF-8');
      try {
        body = JSON.parse(read.text);
      } catch {
        return rpcError(400, -32700, 'Parse error: the body is not valid JSON');
      }
      if (typeof body !== 'object' || body === null) {
        return rpcError(400, -32600, 'Invalid Request: send a JSON-RPC message or batch');
      }
      // JSON.parse nests as deep as the body goes (~200,000 levels in 1 MiB); a schema check or
      // JSON.stringify after it would overflow the stack, a 500 for bad input. A text with too few
      // brackets to nest that deep (almost every request) is not walked.
      if (!nestsWithin(read.text, MAX_REQUEST_DEPTH) && nestedDeeperThan(body, MAX_REQUEST_DEPTH)) {
        return rpcError(400, -32600, TOO_DEEP);
      }
    }

    if (this.#sessions.claims(request, body)) {
      // A session's ordinary request is told legacy from its shape (isPlainLegacyRequest).
      const plain = isPlainLegacyRequest(request, body);
      if (
        plain ||
        (await isLegacyRequest(request, body, { maxRequestBodySize: options.maxBodyBytes }))
      ) {
        return this.#sessions.handle(request, principal, body, session, plain);
      }
    }
    // The common 2026-07-28 call is answered without the SDK's per-request server (direct-call.ts).
    const direct = directCallOf(request, body);
    if (direct !== undefined) {
      return this.#direct.serve(principal, direct, request);
    }
    if (methodOf(body) === 'tools/list') {
      const listed = await answerSessionlessList(this.#runtime, principal, request, body);
      if (listed !== undefined) return listed;
    }
    this.#principals.set(request, principal);
    const watching = listenRequestUris(body);
    if (watching !== undefined) this.#listenRequests.set(request, watching);
    return this.#handler.fetch(request, body === undefined ? {} : { parsedBody: body });
  }

  /** Ends the standalone event streams of the 2025 sessions held here (see `LegacySessions`). */
  closeStreams(): void {
    this.#sessions.closeStreams();
  }

  /** Closes every session and in-flight exchange (the gateway is stopping). */
  async close(): Promise<void> {
    this.#stopWatching();
    this.#runtime.searches.stop();
    this.#direct.stopAll();
    await this.#sessions.closeAll();
    await this.#handler.close();
  }
}

/** The most resources one listen stream may watch (more are not watched). */
const MAX_WATCHED = 100;

/**
 * The resource URIs a `subscriptions/listen` request asks to watch (none: an empty list), or
 * undefined for any other request. The SDK checks the request itself.
 */
function listenRequestUris(body: unknown): readonly string[] | undefined {
  if (typeof body !== 'object' || body === null || !('method' in body)) return undefined;
  if (body.method !== 'subscriptions/listen') return undefined;
  const params = 'params' in body ? body.params : undefined;
  const filter =
    typeof params === 'object' && params !== null && 'notifications' in params
      ? params.notifications
      : undefined;
  const uris =
    typeof filter === 'object' && filter !== null && 'resourceSubscriptions' in filter
      ? filter.resourceSubscriptions
      : undefined;
  if (!Array.isArray(uris)) return [];
  return uris.filter((uri): uri is string => typeof uri === 'string').slice(0, MAX_WATCHED);
}

/** The method of a lone JSON-RPC message, if any. */
function methodOf(body: unknown): unknown {
  return typeof body === 'object' && body !== null && 'method' in body ? body.method : undefined;
}

/** The deepest nesting of objects and arrays a client's MCP message may have, as an upstream's. */
const MAX_REQUEST_DEPTH = 100;
const TOO_DEEP = `Invalid Request: the message nests objects or arrays more than ${MAX_REQUEST_DEPTH} levels deep`;

function rpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status });
}
