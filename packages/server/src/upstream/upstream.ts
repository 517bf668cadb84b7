import { createHash } from 'node:crypto';
import { validateElicitRequest, validateSampleRequest } from '@gateway/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ErrorCode,
  LoggingMessageNotificationSchema,
  McpError,
  type Tool as McpTool,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { type CallToolResult, isSpecType, type LoggingLevel } from '@modelcontextprotocol/server';
import type { ServerLogger } from '../http/logger.js';
import { Stopped } from '../mcp/running-call.js';
import { SERVER_VERSION } from '../openapi/index.js';
import { CallFailure, type SourceCall } from '../tool-sources/index.js';
import { CircuitBreaker, type UpstreamHealth } from './circuit-breaker.js';
import { type GuardedFetch, guardedFetch, UpstreamHttpError } from './guarded-fetch.js';
import { UpstreamHttpTransport } from './http-transport.js';
import { UpstreamRefusedFailure } from './refused.js';
import type { UpstreamTarget } from './target.js';
import { RefusedAddressError, type UrlPolicy } from './url-policy.js';

const CLIENT_INFO = { name: 'gateway', version: SERVER_VERSION };
/** Connecting (TCP, `initialize`) and listing tools: an upstream slower than this is down. */
const CONNECT_TIMEOUT_MS = 15_000;
/** A call is bounded by the gateway's tool time limit (its signal), not by the SDK's default. */
const NO_SDK_TIMEOUT_MS = 24 * 60 * 60 * 1000;
/** Idle connections kept per credential, and how long one may sit unused. */
const MAX_IDLE_PER_KEY = 16;
const IDLE_MS = 60_000;
/** Credentials (users) with pooled connections at once; the least recently used go first. */
const MAX_KEYS = 500;
const MAX_TOOLS = 1000;
const MAX_LIST_PAGES = 20;

/** What an {@link Upstream} is made with. */
export interface UpstreamOptions {
  /** The registration id. */
  id: string;
  target: UpstreamTarget;
  policy: UrlPolicy;
  /** The largest message the upstream may send (`GATEWAY_UPSTREAM_MAX_BYTES`). */
  maxBytes: number;
  logger: ServerLogger;
  /** Called when the upstream says its tool list changed (`notifications/tools/list_changed`). */
  onToolsChanged: () => void;
}

/** One MCP client session with the upstream, and the calls it serves right now. */
interface Connection {
  client: Client;
  key: string;
  /** Calls in flight: an HTTP connection serves one at a time, a stdio process several. */
  calls: Set<SourceCall>;
  closed: boolean;
  idleSince: number;
}

/**
 * An upstream MCP server the gateway calls tools of. Over HTTP it keeps a pool of MCP sessions
 * per credential, each serving one call at a time, so log notifications belong to exactly one call
 * and a user's credential only ever travels on that user's calls. A stdio upstream is one process
 * the gateway started, restarted on the next call when it exits; its log lines reach a client only
 * while it serves that client's call alone. Failures back the upstream off ({@link CircuitBreaker}).
 */
export class Upstream {
  readonly id: string;
  readonly #options: UpstreamOptions;
  readonly #breaker = new CircuitBreaker();
  readonly #idle = new Map<string, Connection[]>();
  /** The served path of each call in flight, for the questions it relays. */
  readonly #paths = new WeakMap<SourceCall, string>();
  readonly #fetch: GuardedFetch | undefined;
  #shared: Promise<Connection> | undefined;
  #sweeper: ReturnType<typeof setInterval> | undefined;
  #closed = false;

  constructor(options: UpstreamOptions) {
    this.id = options.id;
    this.#options = options;
    const { target } = options;
    if (target.kind === 'http') {
      this.#fetch = guardedFetch({
        url: new URL(target.url),
        policy: options.policy,
        maxBytes: options.maxBytes,
        connectTimeoutMs: CONNECT_TIMEOUT_MS,
      });
    }
  }

  get health(): UpstreamHealth {
    return this.#breaker.health();
  }

  /**
   * The upstream's tools, every page (at most 1,000 tools).
   *
   * @throws CallFailure when the upstream cannot be reached or answers something else than MCP.
   */
  async listTools(credential: string | undefined): Promise<McpTool[]> {
    const connection = await this.#checkout(credential, undefined);
    const tools: McpTool[] = [];
    try {
      let cursor: string | undefined;
      for (let page = 0; page < MAX_LIST_PAGES; page++) {
        const answer = await connection.client.listTools(cursor === undefined ? {} : { cursor }, {
          timeout: CONNECT_TIMEOUT_MS,
        });
        tools.push(...answer.tools);
        cursor = answer.nextCursor;
        if (cursor === undefined || tools.length >= MAX_TOOLS) break;
      }
      this.#breaker.success();
      return tools.slice(0, MAX_TOOLS);
    } catch (error) {
      throw this.#failure(error, undefined);
    } finally {
      this.#checkin(connection);
    }
  }

  /**
   * Calls tool `name` with `args` for `call`: progress and log notifications go to its client,
   * its signal cancels the upstream request. A session the upstream forgot is opened again once.
   *
   * @throws CallFailure for anything but a result: upstream degraded, unreachable, 401/403,
   *   a JSON-RPC error, a malformed or oversized answer. The call's own stop (time limit,
   *   cancellation) is rethrown as it is.
   */
  async call(
    name: string,
    args: unknown,
    credential: string | undefined,
    call: SourceCall,
    options: { provider?: string | undefined; path: string },
  ): Promise<CallToolResult> {
    const { provider } = options;
    this.#paths.set(call, options.path);
    const wait = this.#breaker.refusal();
    if (wait !== undefined) {
      throw new CallFailure(
        `The upstream MCP server of source "${this.id}" is degraded: its recent calls failed (${this.#breaker.health().lastError ?? 'unknown reason'}). The gateway tries it again in ${wait} s.`,
        'Upstream degraded',
      );
    }
    // The SDK never removes its listener from the signal it is given, and the call's own signal
    // is aborted when the call ends: given that, every finished call would send the upstream a
    // `notifications/cancelled`. This one is aborted only when the call is stopped.
    const stop = new AbortController();
    const forward = () => stop.abort(call.signal.reason);
    call.signal.addEventListener('abort', forward, { once: true });
    try {
      return await this.#forward(name, args, credential, call, provider, stop.signal);
    } finally {
      call.signal.removeEventListener('abort', forward);
    }
  }

  async #forward(
    name: string,
    args: unknown,
    credential: string | undefined,
    call: SourceCall,
    provider: string | undefined,
    signal: AbortSignal,
  ): Promise<CallToolResult> {
    for (let attempt = 0; ; attempt++) {
      const connection = await this.#checkout(credential, call, provider);
      connection.calls.add(call);
      try {
        const answer = await connection.client.callTool(
          { name, arguments: isRecord(args) ? args : {} },
          CallToolResultSchema,
          {
            signal,
            timeout: NO_SDK_TIMEOUT_MS,
            onprogress: (progress) =>
              call.reportProgress(progress.progress, progress.total, progress.message),
          },
        );
        this.#breaker.success();
        return resultOf(answer, this.id);
      } catch (error) {
        if (call.signal.aborted) {
          // Its answer may still be streaming in: the session is closed, not handed to the next
          // call, which would otherwise hear the stopped call's log lines.
          connection.closed = true;
          if (call.signal.reason instanceof Stopped && call.signal.reason.reason === 'timeout') {
            this.#breaker.failure('a call reached the time limit');
          } else {
            this.#breaker.abandon();
          }
          throw call.signal.reason;
        }
        // The upstream forgot the session (restarted): nothing ran, so one retry is safe.
        if (attempt === 0 && error instanceof StreamableHTTPError && error.code === 404) {
          connection.closed = true;
          continue;
        }
        throw this.#failure(error, provider);
      } finally {
        connection.calls.delete(call);
        this.#checkin(connection);
      }
    }
  }

  /** The tool path a question names: the served path of the tool `call` runs. */
  #toolPathOf(call: SourceCall): string {
    return this.#paths.get(call) ?? this.id;
  }

  /** Closes every connection (and stops a stdio upstream's process). */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#sweeper);
    const all = [...this.#idle.values()].flat();
    this.#idle.clear();
    const shared = this.#shared;
    this.#shared = undefined;
    await Promise.all(all.map((connection) => closeQuietly(connection)));
    if (shared !== undefined) await shared.then(closeQuietly, () => {});
    await this.#fetch?.close().catch(() => {});
  }

  async #checkout(
    credential: string | undefined,
    call: SourceCall | undefined,
    provider?: string | undefined,
  ): Promise<Connection> {
    if (this.#closed) throw new CallFailure(`Source "${this.id}" was removed.`, 'Source removed');
    if (this.#options.target.kind === 'stdio') return this.#stdio();
    const key = credential === undefined ? '' : keyOf(credential);
    const idle = this.#idle.get(key);
    let connection = idle?.pop();
    while (connection?.closed === true) connection = idle?.pop();
    if (connection !== undefined) return connection;
    try {
      return await this.#connect(key, credential, call?.signal);
    } catch (error) {
      if (call?.signal.aborted === true) throw call.signal.reason;
      throw this.#failure(error, provider);
    }
  }

  #checkin(connection: Connection): void {
    if (this.#options.target.kind === 'stdio') return;
    if (connection.closed || this.#closed) {
      void closeQuietly(connection);
      return;
    }
    let idle = this.#idle.get(connection.key);
    if (idle === undefined) {
      idle = [];
      this.#idle.set(connection.key, idle);
      this.#evictKeys();
    }
    if (idle.length >= MAX_IDLE_PER_KEY) {
      void closeQuietly(connection);
      return;
    }
    connection.idleSince = Date.now();
    idle.push(connection);
    this.#sweeper ??= setInterval(() => this.#sweep(), IDLE_MS / 2);
    this.#sweeper.unref();
  }

  #evictKeys(): void {
    while (this.#idle.size > MAX_KEYS) {
      const oldest = this.#idle.keys().next();
      if (oldest.done === true) return;
      for (const connection of this.#idle.get(oldest.value) ?? []) void closeQuietly(connection);
      this.#idle.delete(oldest.value);
    }
  }

  #sweep(): void {
    const before = Date.now() - IDLE_MS;
    for (const [key, idle] of this.#idle) {
      const keep = idle.filter((connection) => connection.idleSince > before && !connection.closed);
      for (const connection of idle) if (!keep.includes(connection)) void closeQuietly(connection);
      if (keep.length === 0) this.#idle.delete(key);
      else this.#idle.set(key, keep);
    }
    if (this.#idle.size === 0) {
      clearInterval(this.#sweeper);
      this.#sweeper = undefined;
    }
  }

  #stdio(): Promise<Connection> {
    const current = this.#shared;
    if (current !== undefined) {
      return current.then((connection) => (connection.closed ? this.#restart() : connection));
    }
    return this.#restart();
  }

  #restart(): Promise<Connection> {
    const started = this.#connect('', undefined, undefined);
    this.#shared = started;
    started.catch((error: unknown) => {
      if (this.#shared === started) this.#shared = undefined;
      this.#breaker.failure(reasonOf(error));
    });
    return started;
  }

  async #connect(
    key: string,
    credential: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Connection> {
    const { target, logger } = this.#options;
    // Sampling and form elicitation are relayed to the calling user's client (the call's `sample`
    // and `ctx.elicit`, as for plugin tools: the client, else the approvals path).
    const client = new Client(CLIENT_INFO, {
      capabilities: { sampling: {}, elicitation: { form: {} } },
    });
    const connection: Connection = { client, key, calls: new Set(), closed: false, idleSince: 0 };
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      // Only a session serving one call can tell whose client to ask.
      const [call] = connection.calls.size === 1 ? connection.calls : [];
      if (call === undefined) {
        throw new McpError(ErrorCode.InvalidRequest, 'Sampling is only relayed during a tool call');
      }
      const { messages, maxTokens, systemPrompt, temperature, stopSequences, modelPreferences } =
        request.params;
      const asked = validateSampleRequest({
        messages,
        maxTokens,
        ...(systemPrompt === undefined ? {} : { systemPrompt }),
        ...(temperature === undefined ? {} : { temperature }),
        ...(stopSequences === undefined ? {} : { stopSequences }),
        ...(modelPreferences === undefined ? {} : { modelPreferences }),
      });
      if (!asked.success) {
        throw new McpError(
          ErrorCode.InvalidParams,
          'The gateway relays text, image and audio sampling only',
        );
      }
      const answer = await call.sample(asked.data);
      return {
        role: answer.role,
        content: answer.content,
        model: answer.model,
        ...(answer.stopReason === undefined ? {} : { stopReason: answer.stopReason }),
      };
    });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const [call] = connection.calls.size === 1 ? connection.calls : [];
      const { params } = request;
      if (call === undefined || params.mode === 'url' || !('requestedSchema' in params)) {
        throw new McpError(
          ErrorCode.InvalidRequest,
          'Only form elicitation during a tool call is relayed',
        );
      }
      const asked = validateElicitRequest({
        toolPath: this.#toolPathOf(call),
        message: params.message,
        type: 'form',
        fields: params.requestedSchema.properties,
        required: params.requestedSchema.required ?? [],
      });
      if (!asked.success) {
        throw new McpError(
          ErrorCode.InvalidParams,
          'The form asks for fields the gateway cannot relay',
        );
      }
      const answer = await call.context.elicit(asked.data);
      if (!answer.approved) return { action: 'decline' };
      return isRecord(answer.data)
        ? {
            action: 'accept',
            content: answer.data,
          }
        : { action: 'accept' };
    });
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      // Only a call this connection serves alone can be told; others' lines stay in the log.
      if (connection.calls.size !== 1) return;
      for (const call of connection.calls) {
        const { level, data, logger: name } = notification.params;
        call.forwardLog(level as LoggingLevel, data, name);
      }
    });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      this.#options.onToolsChanged();
    });
    client.onclose = () => {
      connection.closed = true;
    };
    client.onerror = (error) => {
      logger.info('upstream transport error', { sourceId: this.id, error: reasonOf(error) });
    };
    if (target.kind === 'http') {
      const auth = target.auth;
      const headers: Record<string, string> = {};
      if (auth.kind === 'header' && credential !== undefined) {
        headers[auth.header] =
          auth.scheme === undefined ? credential : `${auth.scheme} ${credential}`;
      }
      if (auth.kind === 'oauth' && credential !== undefined) {
        headers.Authorization = `Bearer ${credential}`;
      }
      if (this.#fetch === undefined)
        throw new Error('an HTTP upstream without its connection pool');
      const transport = new UpstreamHttpTransport({
        url: new URL(target.url),
        dispatcher: this.#fetch.dispatcher,
        headers,
        maxBytes: this.#options.maxBytes,
        // A session's GET stream that breaks is opened again a few times, then left.
        maxReconnects: 3,
      });
      await client.connect(transport, {
        timeout: CONNECT_TIMEOUT_MS,
        ...(signal === undefined ? {} : { signal }),
      });
      return connection;
    }
    const transport = new StdioClientTransport({
      command: target.command,
      args: [...target.args],
      // The SDK adds only a safe default environment (PATH, HOME, ...): no gateway secret leaks.
      env: { ...target.env },
      ...(target.cwd === undefined ? {} : { cwd: target.cwd }),
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => {
      logger.info('upstream stderr', {
        sourceId: this.id,
        text: chunk.toString('utf8').slice(0, 2000),
      });
    });
    await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
    logger.info('upstream process started', { sourceId: this.id, command: target.command });
    return connection;
  }

  /** A {@link CallFailure} for `error`, counted against the upstream when it is the upstream's fault. */
  #failure(error: unknown, provider: string | undefined): CallFailure {
    if (error instanceof CallFailure) return error;
    const label = `The upstream MCP server of source "${this.id}"`;
    if (error instanceof StreamableHTTPError && (error.code === 401 || error.code === 403)) {
      // It answered: up, whatever it thinks of this credential.
      this.#breaker.success();
      const what = error.code === 401 ? 'refused the credential' : 'refused access';
      const fix =
        provider === undefined
          ? "Ask an admin to check the source's credentials."
          : `Reconnect ${provider}: in the web app's Tools tab, or run \`gateway connect ${provider}\`.`;
      return new UpstreamRefusedFailure(
        error.code,
        `${label} ${what} (HTTP ${error.code}). ${fix}`,
        `Upstream answered HTTP ${error.code}`,
      );
    }
    if (error instanceof McpError && error.code !== ErrorCode.ConnectionClosed) {
      if (error.code === ErrorCode.RequestTimeout) {
        this.#breaker.failure('it did not answer in time');
        return new CallFailure(`${label} did not answer in time.`, 'Upstream timed out', 'timeout');
      }
      // The upstream's own refusal (unknown tool, invalid arguments): its words, shortened.
      this.#breaker.success();
      return new CallFailure(
        `${label} answered an error: ${error.message.slice(0, 500)}`,
        `Upstream error ${error.code}`,
      );
    }
    const reason = reasonOf(error);
    this.#breaker.failure(reason);
    return new CallFailure(`${label} ${reason}.`, `Upstream failed: ${reason}`);
  }
}

/** What went wrong with an upstream, in the gateway's words (never the upstream's raw answer). */
function reasonOf(error: unknown): string {
  if (error instanceof UpstreamHttpError) return error.message;
  if (error instanceof StreamableHTTPError) {
    return error.code === -1 ? 'answered something that is not MCP' : `answered HTTP ${error.code}`;
  }
  if (error instanceof McpError) {
    return error.code === ErrorCode.ConnectionClosed
      ? 'closed the connection'
      : `answered an error (${error.code})`;
  }
  const cause = error instanceof Error ? error.cause : undefined;
  if (error instanceof RefusedAddressError) return `cannot be reached: ${error.message}`;
  if (cause instanceof RefusedAddressError) return `cannot be reached: ${cause.message}`;
  if (cause instanceof UpstreamHttpError) return cause.message;
  const code = isRecord(error) && typeof error.code === 'string' ? error.code : undefined;
  if (code === 'UND_ERR_SOCKET') return 'dropped the connection';
  if (code !== undefined && (code.startsWith('E') || code.startsWith('UND_ERR_CONNECT'))) {
    return code === 'ENOENT'
      ? 'could not be started (command not found)'
      : `cannot be reached (${code})`;
  }
  if (error instanceof SyntaxError || (error instanceof Error && error.name === 'ZodError')) {
    return 'answered something that is not MCP';
  }
  if (error instanceof TypeError && error.message === 'fetch failed') {
    const code = isRecord(cause) && typeof cause.code === 'string' ? ` (${cause.code})` : '';
    return `cannot be reached${code}`;
  }
  return 'failed';
}

function resultOf(answer: unknown, sourceId: string): CallToolResult {
  if (!isRecord(answer)) throw malformed(sourceId);
  const result: unknown = {
    content: answer.content,
    ...(answer.structuredContent === undefined
      ? {}
      : { structuredContent: answer.structuredContent }),
    ...(answer.isError === true ? { isError: true } : {}),
  };
  // The SDK client has parsed it as a tool result already; this keeps only what is forwarded.
  if (!isSpecType.CallToolResult(result) || result.content === undefined) throw malformed(sourceId);
  return { ...result, content: result.content };
}

function malformed(sourceId: string): CallFailure {
  return new CallFailure(
    `The upstream MCP server of source "${sourceId}" answered a result that is not an MCP tool result.`,
    'Upstream answered a malformed result',
  );
}

function keyOf(credential: string): string {
  return createHash('sha256').update(credential).digest('base64url');
}

async function closeQuietly(connection: Connection): Promise<void> {
  connection.closed = true;
  await connection.client.close().catch(() => {});
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export { UpstreamRefusedFailure };
