import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import {
  Client,
  type DiscoverResult,
  LOG_LEVEL_META_KEY,
  type McpSubscription,
  type Tool as McpTool,
  type StandardSchemaV1,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ServerLogger } from '../http/logger.js';
import { isRecord } from '../json/is-record.js';
import { Stopped } from '../mcp/running-call.js';
import { SERVER_VERSION } from '../openapi/index.js';
import { CallFailure, type SourceCall } from '../tool-sources/index.js';
import { CircuitBreaker, type UpstreamHealth } from './circuit-breaker.js';
import {
  httpStatusOf,
  judgeFailure,
  MAX_INPUT_ROUNDS,
  reasonOf,
  resultOf,
} from './failure-reasons.js';
import { type GuardedFetch, guardedFetch } from './guarded-fetch.js';
import { UpstreamHttpTransport } from './http-transport.js';
import { IdleSessions } from './idle-sessions.js';
import { UpstreamRefusedFailure } from './refused.js';
import { relayToCalls } from './relays.js';
import { requiredLinks, settleRequiredLinks } from './required-links.js';
import type { UpstreamTarget } from './target.js';
import type { UrlPolicy } from './url-policy.js';

const CLIENT_INFO = { name: 'gateway', version: SERVER_VERSION };
/**
 * Connecting (TCP, `server/discover` or `initialize`) and listing tools: an upstream slower than
 * this is down.
 */
const CONNECT_TIMEOUT_MS = 15_000;
/** A call is bounded by the gateway's tool time limit (its signal), not by the SDK's default. */
const NO_SDK_TIMEOUT_MS = 24 * 60 * 60 * 1000;
/** Credentials (users) with pooled sessions or clients at once; the least recently used go first. */
const MAX_KEYS = 500;
const MAX_TOOLS = 1000;
const MAX_LIST_PAGES = 20;
/** A `subscriptions/listen` stream the upstream ended is opened again this many times. */
const MAX_RELISTENS = 3;
/**
 * The log level a 2026-07-28 call asks the upstream for: every line, as a 2025 session (which the
 * gateway never sends `logging/setLevel`) gets; the calling client's own level filters them.
 */
const CALL_META = { [LOG_LEVEL_META_KEY]: 'debug' };

/**
 * A tool result as it came; {@link resultOf} checks it, once. Through `callTool` the SDK would
 * also parse every result with its revision's schema and look up the tool's output schema and
 * `Mcp-Param-*` declarations: a second pass over every forwarded result.
 */
const AS_SENT: StandardSchemaV1<unknown, unknown> = {
  '~standard': { version: 1, vendor: 'gateway', validate: (value) => ({ value }) },
};

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

/** One MCP client of the upstream: a 2025 session, or a 2026-07-28 client (no session). */
interface Connection {
  client: Client;
  key: string;
  /** Speaks 2026-07-28: stateless, serves any number of calls at once. */
  modern: boolean;
  closed: boolean;
  idleSince: number;
}

/** The revision an HTTP upstream spoke at its last connect: its discovery, or 2025 only. */
type Era = { kind: 'modern'; discover: DiscoverResult } | { kind: 'legacy' };

/**
 * An upstream MCP server the gateway calls tools of, with the MCP SDK v2 client over the
 * gateway's own HTTP transport. An HTTP upstream is asked once which revision it speaks
 * (`server/discover`): one that offers 2026-07-28 gets it, statelessly, from one client per
 * credential serving every call at once (each call is its own POST, the credential a header of
 * that request, and what arrives on a call's stream belongs to that call); one that does not gets
 * the 2025-11-25 `initialize` handshake and a pool of sessions per credential, each serving one
 * call at a time. A user's credential only ever travels on that user's calls. A stdio upstream is
 * one process the gateway started (2025 revision), restarted on the next call when it exits; its
 * log lines reach a client only while it serves that client's call alone. Failures back the
 * upstream off ({@link CircuitBreaker}).
 */
export class Upstream {
  readonly id: string;
  readonly #options: UpstreamOptions;
  readonly #breaker = new CircuitBreaker();
  /** The call whose request an upstream's message arrived on (the transport reads it there). */
  readonly #current = new AsyncLocalStorage<SourceCall>();
  readonly #idle = new IdleSessions<Connection>({ maxKeys: MAX_KEYS, close: closeQuietly });
  /** 2026-07-28 clients, one per credential. */
  readonly #modern = new Map<string, Promise<Connection>>();
  /** The served path of each call in flight, for the questions it relays. */
  readonly #paths = new WeakMap<SourceCall, string>();
  readonly #fetch: GuardedFetch | undefined;
  /** Calls a stdio process serves now (its log lines go to a call only while it is alone). */
  readonly #stdioCalls = new Set<SourceCall>();
  #era: Era | undefined;
  /** The 2026-07-28 `subscriptions/listen` stream for tool list changes, open or opening. */
  #subscription: Promise<McpSubscription | undefined> | undefined;
  #relistens = 0;
  #relisten: ReturnType<typeof setTimeout> | undefined;
  #shared: Promise<Connection> | undefined;
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
    // The credential the list is fetched with is the one to hear its changes with.
    if (connection.modern) this.#listen(connection);
    const tools: McpTool[] = [];
    try {
      let cursor: string | undefined;
      for (let page = 0; page < MAX_LIST_PAGES; page++) {
        const answer = await connection.client.listTools(cursor === undefined ? {} : { cursor }, {
          timeout: CONNECT_TIMEOUT_MS,
          // Not kept in the client: nothing reads it there (calls go through `request()`, see
          // AS_SENT), and the stored list is the registry's.
          cacheMode: 'bypass',
        });
        tools.push(...answer.tools);
        cursor = answer.nextCursor;
        if (cursor === undefined || tools.length >= MAX_TOOLS) break;
      }
      this.#breaker.success();
      return tools.slice(0, MAX_TOOLS);
    } catch (error) {
      throw this.#failure(error, undefined, connection);
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
    options: {
      provider?: string | undefined;
      path: string;
      /** The tool as listed, when it declares arguments as headers (`declaresParamHeaders`). */
      headerDeclaring?: McpTool | undefined;
    },
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
    // The call's own signal is aborted when the call ends, however it ends: given to the SDK, every
    // finished call would be cancelled at the upstream. This one is aborted only when it is stopped.
    const stop = new AbortController();
    const forward = () => stop.abort(call.signal.reason);
    call.signal.addEventListener('abort', forward, { once: true });
    try {
      return await this.#current.run(call, () =>
        this.#forward(name, args, credential, call, provider, stop.signal, options.headerDeclaring),
      );
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
    headerDeclaring: McpTool | undefined,
  ): Promise<CallToolResult> {
    let linksAsked = false;
    for (let attempt = 0; ; attempt++) {
      const connection = await this.#checkout(credential, call, provider);
      const stdio = this.#options.target.kind === 'stdio';
      if (stdio) this.#stdioCalls.add(call);
      let required: ReturnType<typeof requiredLinks>;
      try {
        const params = {
          name,
          arguments: isRecord(args) ? args : {},
          ...(connection.modern ? { _meta: CALL_META } : {}),
        };
        const sending = {
          signal,
          timeout: NO_SDK_TIMEOUT_MS,
          onprogress: (progress: { progress: number; total?: number; message?: string }) =>
            call.reportProgress(progress.progress, progress.total, progress.message),
        };
        // A 2026-07-28 server requires the `Mcp-Param-*` headers of the arguments its tool
        // declares as headers (SEP-2243): the client's `callTool` mirrors them from the definition
        // given (without its output schema: results are forwarded as they are). Other calls skip
        // its second pass over the result.
        const answer =
          connection.modern && headerDeclaring !== undefined
            ? await connection.client.callTool(params, {
                ...sending,
                toolDefinition: { ...headerDeclaring, outputSchema: undefined },
              })
            : await connection.client.request({ method: 'tools/call', params }, AS_SENT, sending);
        this.#breaker.success();
        return resultOf(answer, this.id);
      } catch (error) {
        if (call.signal.aborted) {
          // A 2025 session's answer may still be streaming in: the session is closed, not handed
          // to the next call, which would otherwise hear the stopped call's log lines. A
          // 2026-07-28 call's stream was closed by the stop itself.
          if (!connection.modern) connection.closed = true;
          if (call.signal.reason instanceof Stopped && call.signal.reason.reason === 'timeout') {
            this.#breaker.failure('a call reached the time limit');
          } else {
            this.#breaker.abandon();
          }
          throw call.signal.reason;
        }
        // The relayed question ends this round (the client answers `input_required`): the upstream
        // did nothing wrong.
        if (call.questionPending) throw error;
        // The upstream forgot the session (restarted): nothing ran, so one retry is safe.
        if (attempt === 0 && !connection.modern && httpStatusOf(error) === 404) {
          connection.closed = true;
          continue;
        }
        required = requiredLinks(error);
        if (required === undefined) throw this.#failure(error, provider, connection);
        // It answered as MCP has it: the user has a step to take in the browser.
        this.#breaker.success();
      } finally {
        if (stdio) this.#stdioCalls.delete(call);
        this.#checkin(connection);
      }
      // Asked with the session given back: the user may take minutes.
      await settleRequiredLinks(required, call, this.id, linksAsked);
      linksAsked = true;
    }
  }

  /** The header a request carries the credential in (each client is bound to one credential). */
  #authHeaders(credential: string | undefined): Record<string, string> {
    const { target } = this.#options;
    if (target.kind !== 'http' || credential === undefined) return {};
    const { auth } = target;
    if (auth.kind === 'header') {
      return {
        [auth.header]: auth.scheme === undefined ? credential : `${auth.scheme} ${credential}`,
      };
    }
    if (auth.kind === 'oauth') return { Authorization: `Bearer ${credential}` };
    return {};
  }

  /** The tool path a question names: the served path of the tool `call` runs. */
  #toolPathOf(call: SourceCall): string {
    return this.#paths.get(call) ?? this.id;
  }

  /** The call a question or log line of the upstream belongs to, if it can be told. */
  #callOf(): SourceCall | undefined {
    if (this.#options.target.kind === 'stdio') {
      const [call] = this.#stdioCalls.size === 1 ? this.#stdioCalls : [];
      return call;
    }
    return this.#current.getStore();
  }

  /**
   * Opens the 2026-07-28 stream on which the upstream says its tool list changed
   * (`subscriptions/listen`), when it offers that and none is open. A stream the upstream ends is
   * opened again a few times; after that the scheduled refresh still notices changes.
   */
  #listen(connection: Connection): void {
    const { target } = this.#options;
    if (this.#subscription !== undefined || this.#closed || target.kind !== 'http') return;
    // An oauth source's list is fetched with a user's token now and then (a connect, the
    // schedule); no stream is held open on one.
    if (target.auth.kind === 'oauth') return;
    const era = this.#era;
    if (era?.kind !== 'modern' || era.discover.capabilities.tools?.listChanged !== true) return;
    const opening = this.#current
      .exit(() =>
        connection.client.listen({ toolsListChanged: true }, { timeout: CONNECT_TIMEOUT_MS }),
      )
      .then(
        (subscription) => {
          void subscription.closed.then((how) => {
            if (this.#subscription !== opening) return;
            this.#subscription = undefined;
            if (how !== 'remote' || connection.closed || this.#relistens >= MAX_RELISTENS) return;
            this.#relisten = setTimeout(
              () => this.#listen(connection),
              1000 * 2 ** this.#relistens,
            );
            this.#relisten.unref();
            this.#relistens++;
          });
          return subscription;
        },
        (error: unknown) => {
          if (this.#subscription === opening) this.#subscription = undefined;
          this.#options.logger.info('upstream tool list changes not heard', {
            sourceId: this.id,
            error: reasonOf(error),
          });
          return undefined;
        },
      );
    this.#subscription = opening;
  }

  /** Closes every connection (and stops a stdio upstream's process). */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#relisten);
    // Closing its client ends the listen stream; nothing more is said to an upstream being left.
    this.#subscription = undefined;
    const idle = this.#idle.closeAll();
    const modern = [...this.#modern.values()];
    this.#modern.clear();
    const shared = this.#shared;
    this.#shared = undefined;
    await idle;
    await Promise.all(modern.map((connection) => connection.then(closeQuietly, () => {})));
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
    if (this.#era?.kind !== 'legacy') {
      const modern = this.#modern.get(key);
      if (modern !== undefined) {
        const connection = await modern.catch(() => undefined);
        // A 2025 session found by a concurrent first call serves that call alone: this one
        // gets a session of its own below.
        if (connection?.modern === true && !connection.closed) {
          // Most recently used last: the oldest go first when there are too many.
          this.#modern.delete(key);
          this.#modern.set(key, modern);
          return connection;
        }
        if (this.#modern.get(key) === modern) this.#modern.delete(key);
      }
    }
    const idle = this.#idle.take(key);
    if (idle !== undefined) return idle;
    try {
      // Opened outside the call: what the connection hears later (a session's GET stream) is not
      // the call's.
      const connecting = this.#current.exit(() => this.#connect(key, credential, call?.signal));
      if (this.#era?.kind !== 'legacy') {
        // Concurrent first calls with one credential share one 2026-07-28 client; a 2025 session
        // is handed to this call alone, so only a modern one stays in the map.
        const shared = connecting.then((opened) => {
          if (!opened.modern && this.#modern.get(key) === shared) this.#modern.delete(key);
          return opened;
        });
        this.#modern.set(key, shared);
        this.#evictModern();
        shared.catch(() => {
          if (this.#modern.get(key) === shared) this.#modern.delete(key);
        });
        return await shared;
      }
      return await connecting;
    } catch (error) {
      if (call?.signal.aborted === true) throw call.signal.reason;
      throw this.#failure(error, provider, undefined);
    }
  }

  #checkin(connection: Connection): void {
    if (this.#options.target.kind === 'stdio' || connection.modern) {
      if (connection.closed && connection.modern) void closeQuietly(connection);
      return;
    }
    if (connection.closed || this.#closed) {
      void closeQuietly(connection);
      return;
    }
    this.#idle.give(connection);
  }

  #evictModern(): void {
    while (this.#modern.size > MAX_KEYS) {
      const oldest = this.#modern.entries().next();
      if (oldest.done === true) return;
      const [key, connection] = oldest.value;
      this.#modern.delete(key);
      void connection.then(closeQuietly, () => {});
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
    const client = new Client(CLIENT_INFO, {
      capabilities: { sampling: {}, elicitation: { form: {}, url: {} } },
      ...(target.kind === 'http' ? { versionNegotiation: { mode: 'auto' as const } } : {}),
      listMaxPages: MAX_LIST_PAGES,
      inputRequired: { maxRounds: MAX_INPUT_ROUNDS },
    });
    const connection: Connection = { client, key, modern: false, closed: false, idleSince: 0 };
    // Questions, sampling and log lines go to the call they belong to (the call's `sample` and
    // `ctx.elicit`, as for plugin tools).
    relayToCalls(client, {
      callOf: () => this.#callOf(),
      toolPathOf: (call) => this.#toolPathOf(call),
      onToolsChanged: () => this.#options.onToolsChanged(),
    });
    client.onclose = () => {
      connection.closed = true;
    };
    client.onerror = (error) => {
      logger.info('upstream transport error', { sourceId: this.id, error: reasonOf(error) });
    };
    if (target.kind === 'http') {
      if (this.#fetch === undefined)
        throw new Error('an HTTP upstream without its connection pool');
      const era = this.#era;
      const transport = new UpstreamHttpTransport({
        url: new URL(target.url),
        dispatcher: this.#fetch.dispatcher,
        // A 2026-07-28 client serves any call of this credential: its header goes on each request,
        // and on the version probe, which a protected upstream answers only with it.
        headers: this.#authHeaders(credential),
        maxBytes: this.#options.maxBytes,
        // A session's GET stream that breaks is opened again a few times, then left.
        maxReconnects: 3,
      });
      await client.connect(transport, {
        timeout: CONNECT_TIMEOUT_MS,
        ...(signal === undefined ? {} : { signal }),
        ...(era === undefined ? {} : { prior: era }),
      });
      const discover = client.getDiscoverResult();
      connection.modern = client.getProtocolEra() === 'modern';
      this.#era =
        connection.modern && discover !== undefined
          ? { kind: 'modern', discover }
          : { kind: 'legacy' };
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

  /**
   * A {@link CallFailure} for `error`, counted against the upstream when it is the upstream's fault.
   * A 2026-07-28 connection that failed below MCP is dropped, and the upstream asked again at the
   * next connect which revision it speaks (it may have been replaced by a 2025 server).
   */
  #failure(
    error: unknown,
    provider: string | undefined,
    connection: Connection | undefined,
  ): CallFailure {
    if (error instanceof CallFailure) return error;
    const judged = judgeFailure(error, this.id, provider);
    if (judged.fault === undefined) this.#breaker.success();
    else this.#breaker.failure(judged.fault);
    if (judged.belowMcp && connection?.modern === true) {
      connection.closed = true;
      this.#era = undefined;
    }
    return judged.failure;
  }
}

function keyOf(credential: string): string {
  return createHash('sha256').update(credential).digest('base64url');
}

async function closeQuietly(connection: Connection): Promise<void> {
  connection.closed = true;
  await connection.client.close().catch(() => {});
}

export { UpstreamRefusedFailure };
