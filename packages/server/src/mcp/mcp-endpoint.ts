import { createMcpHandler, isJsonContentType, isLegacyRequest } from '@modelcontextprotocol/server';
import { namespacedUri } from '../upstream/namespaced-names.js';
import { createToolServer } from './create-server.js';
import { DirectCalls, directCallOf } from './direct-call.js';
import { META_TOOLS } from './discovery/index.js';
import { SessionNotices, visibleSources } from './federation/index.js';
import { answerSessionList } from './list-answer.js';
import { type McpOptions, resolveMcpOptions } from './options.js';
import type { McpPrincipal } from './principal.js';
import { readBody } from './read-body.js';
import { createRoundStateCodec } from './request-state.js';
import type { McpDeps, McpRuntime } from './runtime.js';
import { toolsOf } from './runtime.js';
import { ServedTools } from './served-tools.js';
import { isPlainLegacyRequest } from './session-http.js';
import { LegacySessions } from './sessions/index.js';
import { SharedSessions } from './shared-sessions/index.js';
import type { ToolsChange } from './shared-sessions/session-bus.js';
import { ToolIndexCache } from './tool-list.js';

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

  constructor(
    services: McpDeps,
    authSecret: string,
    maxBodyBytes: number,
    options: McpOptions = {},
    deployment: { postgresUrl?: string } = {},
  ) {
    const resolved = resolveMcpOptions(options, maxBodyBytes);
    this.#runtime = {
      services,
      options: resolved,
      codec: createRoundStateCodec(authSecret, resolved.approvalTimeoutMs),
      tools: new ToolIndexCache({ toolName: resolved.toolName, logger: services.logger }),
      notices: new SessionNotices(),
      served: new ServedTools(),
    };
    this.#direct = new DirectCalls(this.#runtime);
    const onerror = (error: Error) =>
      services.logger.warn('MCP request rejected or failed', { error: error.message });
    const factory = (context: { era: 'legacy' | 'modern'; requestInfo?: Request }) => {
      const principal = context.requestInfo && this.#principals.get(context.requestInfo);
      if (principal === undefined)
        throw new Error('MCP request without an authenticated principal');
      return createToolServer(
        this.#runtime,
        principal,
        context.era === 'modern' ? 'modern' : 'stateless',
      );
    };
    // 2025 requests outside a session are served statelessly by the handler's own fallback: the
    // handler classifies each request once, where asking isLegacyRequest() first did it twice.
    this.#handler = createMcpHandler(factory, {
      legacy: 'stateless',
      onerror,
      maxRequestBodySize: resolved.maxBodyBytes,
    });
    this.#sessions = new LegacySessions({
      createServer: (principal, level) =>
        createToolServer(this.#runtime, principal, 'session', level),
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
      answerDirectly: (session, request, body) =>
        answerSessionList(this.#runtime, session, request, body),
      ...(services.database.dialect === 'postgres' && deployment.postgresUrl !== undefined
        ? {
            shared: new SharedSessions({
              database: services.database,
              url: deployment.postgresUrl,
              logger: services.logger,
              idleMs: resolved.sessionIdleMs,
            }),
          }
        : {}),
    });
    const stopCatalog = services.plugins.onChange(() => this.toolsChanged({ kind: 'catalog' }));
    const stopPolicy = services.policy.onChange((change) => this.toolsChanged(change));
    const stopEndpoints = services.endpointScopes.onChange((endpointId) =>
      this.toolsChanged({ kind: 'endpoint', endpointId }),
    );
    // What upstreams say of their resources and prompts reaches the clients listening here.
    const stopNotices = services.upstreams.onNotice((source, notice) => {
      const notify = this.#handler.notify;
      if (notice.kind === 'resources_changed') notify.resourcesChanged();
      else if (notice.kind === 'prompts_changed') notify.promptsChanged();
      else notify.resourceUpdated(namespacedUri(source.namespace, notice.uri));
      void this.#runtime.notices.heard(
        (principal) => visibleSources(this.#runtime, principal),
        source,
        notice,
      );
    });
    this.#stopWatching = () => {
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
    // 2026-07-28 listeners are not told apart by principal: they all hear it.
    this.#handler.notify.toolsChanged();
    this.#sessions.toolsChanged(change);
  }

  /** How many 2025 sessions this instance holds. */
  get sessionCount(): number {
    return this.#sessions.size;
  }

  /**
   * Answers one HTTP request to the endpoint for `principal`, whom `authenticate()` found.
   */
  async handle(request: Request, principal: McpPrincipal): Promise<Response> {
    const { options } = this.#runtime;

    let body: unknown;
    if (request.method === 'POST') {
      if (!isJsonContentType(request.headers.get('content-type'))) {
        return rpcError(415, -32000, 'Unsupported Media Type: send Content-Type: application/json');
      }
      const read = await readBody(request, options.maxBodyBytes);
      if (read.tooLarge) {
        return rpcError(
          413,
          -32000,
          `Payload Too Large: the body must not exceed ${options.maxBodyBytes} bytes`,
        );
      }
      try {
        body = JSON.parse(read.text);
      } catch {
        return rpcError(400, -32700, 'Parse error: the body is not valid JSON');
      }
      if (typeof body !== 'object' || body === null) {
        return rpcError(400, -32600, 'Invalid Request: send a JSON-RPC message or batch');
      }
    }

    if (
      this.#sessions.claims(request, body) &&
      // A session's ordinary request is told legacy from its shape (isPlainLegacyRequest).
      (isPlainLegacyRequest(request, body) ||
        (await isLegacyRequest(request, body, { maxRequestBodySize: options.maxBodyBytes })))
    ) {
      return this.#sessions.handle(request, principal, body);
    }
    // The common 2026-07-28 call is answered without the SDK's per-request server (direct-call.ts).
    const direct = directCallOf(request, body);
    if (direct !== undefined) {
      return this.#direct.serve(principal, direct, request);
    }
    this.#principals.set(request, principal);
    return this.#handler.fetch(request, body === undefined ? {} : { parsedBody: body });
  }

  /** Ends the standalone event streams of the 2025 sessions held here (see `LegacySessions`). */
  closeStreams(): void {
    this.#sessions.closeStreams();
  }

  /** Closes every session and in-flight exchange (the gateway is stopping). */
  async close(): Promise<void> {
    this.#stopWatching();
    this.#direct.stopAll();
    await this.#sessions.closeAll();
    await this.#handler.close();
  }
}

function rpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status });
}
