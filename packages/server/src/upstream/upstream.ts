import { AsyncLocalStorage } from 'node:async_hooks';
import { ToolError } from '@gateway/sdk';
import { LOG_LEVEL_META_KEY, type Tool as McpTool } from '@modelcontextprotocol/client';
import { type CallToolResult, ProtocolError } from '@modelcontextprotocol/server';
import type { ServerLogger } from '../http/logger.js';
import { isRecord } from '../json/is-record.js';
import { CallFailure, type SourceCall, Stopped } from '../tool-sources/index.js';
import { eitherSignal, signalOf } from './abort-signals.js';
import { CircuitBreaker, type UpstreamHealth } from './circuit-breaker.js';
import {
  CONNECT_TIMEOUT_MS,
  type Connection,
  closeQuietly,
  type Era,
  MAX_LIST_PAGES,
  openConnection,
} from './connection.js';
import { Connections } from './connections.js';
import { httpStatusOf, httpTextOf, judgeFailure, reasonOf, resultOf } from './failure-reasons.js';
import { type GuardedFetch, guardedFetch } from './guarded-fetch.js';
import { heldQuestionOwner } from './held-question.js';
import { toolsWithinBudget } from './list-budget.js';
import { ListChangedStream } from './list-changed.js';
import type { UpstreamNotice } from './notice.js';
import { type Offers, offersOf } from './offers.js';
import { createRefusalLog, type RefusalLog } from './refusal-log.js';
import { UpstreamRefusedFailure } from './refused.js';
import { requiredLinks, settleRequiredLinks } from './required-links.js';
import { AS_SENT, type CallFrame, sendCall } from './send-call.js';
import type { RelaySettings, UpstreamTarget } from './target.js';
import type { UrlPolicy } from './url-policy.js';

/** A call is bounded by the gateway's tool time limit (its signal), not by the SDK's default. */
const NO_SDK_TIMEOUT_MS = 24 * 60 * 60 * 1000;
const MAX_TOOLS = 1000;
/** How long a stdio process has to answer a ping after a call timed out before it is restarted. */
const PING_TIMEOUT_MS = 10_000;

/** What an {@link Upstream} is made with. */
export interface UpstreamOptions {
  /** The registration id. */
  id: string;
  target: UpstreamTarget;
  policy: UrlPolicy;
  /** The largest message the upstream may send (`GATEWAY_UPSTREAM_MAX_BYTES`). */
  maxBytes: number;
  /** How long it may take to accept a POST that asks nothing of its own (http-transport.ts). */
  messageTimeoutMs?: number | undefined;
  /** How long an HTTP upstream's `server/discover` or `initialize` may take (connection.ts). */
  connectTimeoutMs?: number | undefined;
  logger: ServerLogger;
  /** Called when the upstream says its tool list changed (`notifications/tools/list_changed`). */
  onToolsChanged: () => void;
  /** Called when the upstream says its resources or prompts changed (see {@link UpstreamNotice}). */
  onNotice?: ((notice: UpstreamNotice) => void) | undefined;
  /** Whether its questions and sampling requests reach the user now (default: both do). */
  relaySettings?: (() => RelaySettings) | undefined;
}

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
  /**
   * The call whose request an upstream's message arrived on (the transport reads it there). A
   * frame carries on into whatever runs from it (a timer the call's messages set, a tool list
   * fetch): every request that is no call's, and what the upstream's list notices set off, run
   * outside every frame, or their streams would speak as the call.
   */
  readonly #current = new AsyncLocalStorage<SourceCall>();
  /**
   * Where a call's messages find it (send-call.ts): in `#current`, entered only where such a
   * message can arrive; a stdio process's are told apart by `#stdioCalls` (`#callOf`), as its
   * pipe's listeners run in the context they were added in, so none is entered for it.
   */
  readonly #frame: CallFrame;
  readonly #connections: Connections;
  /** The served path of each call in flight, for the questions it relays. */
  readonly #paths = new WeakMap<SourceCall, string>();
  readonly #fetch: GuardedFetch | undefined;
  /**
   * Calls a stdio process serves now (its log lines go to a call only while it is alone), each
   * with what tells a question held for it (`heldQuestionOwner`) that it ended.
   */
  readonly #stdioCalls = new Map<SourceCall, { ended: Promise<void>; end: () => void }>();
  /**
   * Requests of the gateway's own in flight ({@link #ownRequest}): tool lists, resources,
   * prompts; each true once answered, false when it failed.
   */
  readonly #ownRequests = new Set<Promise<boolean>>();
  /** The 2026-07-28 `subscriptions/listen` stream for tool list changes. */
  readonly #listChanged: ListChangedStream;
  #era: Era | undefined;
  #offers: Offers | undefined;
  #closed = false;
  /** Aborted when the source is removed (or the gateway stops). */
  readonly #removal = new AbortController();
  /** The upstream's requests refused for belonging to no call, logged without a flood. */
  readonly #refusals: RefusalLog;
  /** Why a stdio upstream's process is not running (it could not start, or it exited). */
  #processDown: string | undefined;

  constructor(options: UpstreamOptions) {
    this.id = options.id;
    this.#options = options;
    this.#refusals = createRefusalLog(options.logger, options.id);
    const { target } = options;
    this.#frame = { storage: this.#current, needed: target.kind !== 'stdio' };
    if (target.kind === 'http') {
      this.#fetch = guardedFetch({
        url: new URL(target.url),
        policy: options.policy,
        maxBytes: options.maxBytes,
        connectTimeoutMs: CONNECT_TIMEOUT_MS,
      });
    }
    this.#connections = new Connections({
      stdio: target.kind === 'stdio',
      era: () => this.#era,
      // Opened outside the call: what the connection hears later (a session's GET stream) is not
      // the call's.
      connect: (key, credential, signal) =>
        this.#current.exit(() => this.#connect(key, credential, signal)),
      start: () =>
        this.#connect('', undefined, undefined).then((connection) => {
          this.#processDown = undefined;
          return connection;
        }),
      onStartFailure: (error) => {
        this.#processDown = reasonOf(error);
        this.#options.logger.warn('upstream process not started', {
          sourceId: this.id,
          reason: this.#processDown,
        });
        this.#breaker.failure(this.#processDown);
      },
    });
    this.#listChanged = new ListChangedStream({
      id: options.id,
      target,
      logger: options.logger,
      era: () => this.#era,
      outsideCall: (open) => this.#current.exit(open),
    });
  }

  /**
   * What the upstream offered besides tools when its tool list was last fetched here; undefined
   * before that (the stored copy tells then).
   */
  get offers(): Offers | undefined {
    return this.#offers;
  }

  /** How the upstream's recent calls went (its circuit breaker). */
  get health(): UpstreamHealth {
    const health = this.#breaker.health();
    // A stdio upstream whose process is not running is degraded until it starts, however few
    // calls have failed.
    if (this.#processDown === undefined) return health;
    return { ...health, state: 'degraded', lastError: this.#processDown };
  }

  /**
   * The upstream's tools, every page (at most 1,000 tools).
   *
   * @throws CallFailure when the upstream cannot be reached or answers something else than MCP.
   */
  listTools(credential: string | undefined): Promise<McpTool[]> {
    // No call's, whoever fetches it: a refresh that a call's `list_changed` set off runs in that
    // call's frame, where the list's stream would speak as the call.
    return this.#ownRequest(async () => {
      try {
        return await this.#listTools(credential, true);
      } catch (error) {
        if (!(error instanceof StaleSession)) throw error;
        // Listing changes nothing: a session the upstream forgot is replaced and asked again.
        return this.#listTools(credential, false);
      }
    });
  }

  async #listTools(credential: string | undefined, mayHeal: boolean): Promise<McpTool[]> {
    const connection = await this.#checkout(credential, undefined);
    // The credential the list is fetched with is the one to hear its changes with.
    if (connection.modern) this.#listChanged.listen(connection);
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
      this.#offers = offersOf(connection.client.getServerCapabilities());
      const { kept, left } = toolsWithinBudget(tools.slice(0, MAX_TOOLS), this.#options.maxBytes);
      if (left.length > 0) {
        this.#options.logger.warn('upstream tools left out: too large', {
          sourceId: this.id,
          tools: left.slice(0, 20).join(', '),
          count: left.length,
        });
      }
      return kept;
    } catch (error) {
      if (mayHeal && staleSession(error, connection) !== undefined) {
        connection.closed = true;
        this.#connections.dropIdle();
        throw new StaleSession();
      }
      throw this.#failure(error, undefined, connection);
    } finally {
      this.#connections.checkin(connection);
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
      /** The upstream annotates the tool `readOnlyHint: true`: sending it twice is harmless. */
      readOnly?: boolean | undefined;
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
    return await this.#forward(name, args, credential, call, provider, options);
  }

  async #forward(
    name: string,
    args: unknown,
    credential: string | undefined,
    call: SourceCall,
    provider: string | undefined,
    tool: { headerDeclaring?: McpTool | undefined; readOnly?: boolean | undefined },
  ): Promise<CallToolResult> {
    const { headerDeclaring } = tool;
    let linksAsked = false;
    let healed = false;
    for (;;) {
      const found = this.#checkoutFor(credential, call, provider);
      const connection = found instanceof Promise ? await found : found;
      const stdio = this.#options.target.kind === 'stdio';
      if (stdio) this.#stdioCalls.set(call, callEnd());
      let required: ReturnType<typeof requiredLinks>;
      try {
        const answer = await this.#send(connection, name, args, call, headerDeclaring);
        this.#breaker.success();
        return resultOf(answer, this.id);
      } catch (error) {
        if (call.signal.aborted) this.#stopped(call, connection, stdio);
        // The source was removed meanwhile, which closed its connections: not the upstream's doing.
        if (this.#closed) throw this.#removed();
        // The relayed question ends this round (the client answers `input_required`): the upstream
        // did nothing wrong.
        if (call.questionPending) throw error;
        // The gateway's own rule stopped it while relaying a question (too many questions in one
        // call): said in the gateway's words, and not held against the upstream's health.
        if (error instanceof ToolError) throw error;
        // A session the upstream forgot (it restarted) is dropped and a new one opened, once: at
        // once when the call never reached the tool, else only for a tool that changes nothing.
        const stale = healed ? undefined : staleSession(error, connection);
        if (stale !== undefined) {
          connection.closed = true;
          this.#connections.dropIdle();
          healed = true;
          if (stale === 'refused' || tool.readOnly === true) continue;
          throw this.#staleFailure(error, provider);
        }
        required = requiredLinks(error);
        if (required === undefined) throw this.#failure(error, provider, connection);
        // It answered as MCP has it: the user has a step to take in the browser.
        this.#breaker.success();
      } finally {
        if (stdio) {
          this.#stdioCalls.get(call)?.end();
          this.#stdioCalls.delete(call);
        }
        this.#connections.checkin(connection);
      }
      // Asked with the session given back: the user may take minutes.
      await settleRequiredLinks(required, call, this.id, linksAsked);
      linksAsked = true;
    }
  }

  /** Sends the call to the upstream on `connection`, as the calling client asked for it. */
  #send(
    connection: Connection,
    name: string,
    args: unknown,
    call: SourceCall,
    headerDeclaring: McpTool | undefined,
  ) {
    // The upstream is asked for the log lines and progress the calling client asked for, no
    // more: the rest would be dropped here (a 2025 session is never sent `logging/setLevel`).
    const level = call.clientLogLevel;
    const params = {
      name,
      arguments: isRecord(args) ? args : {},
      ...(connection.modern && level !== undefined
        ? { _meta: { [LOG_LEVEL_META_KEY]: level } }
        : {}),
    };
    const sending = {
      timeout: NO_SDK_TIMEOUT_MS,
      ...(call.takesProgress ? { onprogress: this.#progressTo(call) } : {}),
    };
    // A 2026-07-28 server requires the `Mcp-Param-*` headers of the arguments its tool
    // declares as headers (SEP-2243): the client's `callTool` mirrors them from the definition
    // given (without its output schema: results are forwarded as they are). Other calls skip
    // its second pass over the result.
    return sendCall(connection, params, sending, call, headerDeclaring, this.#frame);
  }

  /** A call stopped by its caller or its time limit: what that leaves of the connection. */
  #stopped(call: SourceCall, connection: Connection, stdio: boolean): never {
    // A 2025 session's answer may still be streaming in: the session is closed, not handed
    // to the next call, which would otherwise hear the stopped call's log lines. A
    // 2026-07-28 call's stream was closed by the stop itself. A stdio process keeps
    // running: the SDK has sent it `notifications/cancelled`, and its state is everyone's.
    const timedOut =
      call.signal.reason instanceof Stopped && call.signal.reason.reason === 'timeout';
    if (stdio) {
      if (timedOut) this.#checkAnswering(connection);
    } else if (!connection.modern) {
      connection.closed = true;
    }
    if (timedOut) this.#breaker.failure('a call reached the time limit');
    else this.#breaker.abandon();
    throw call.signal.reason;
  }

  /**
   * Sends `method` with `params` for a caller outside a tool call (resources, prompts,
   * completions) with the caller's `credential`, and gives back the answer as the upstream sent
   * it (the caller checks it). A session the upstream forgot is opened again once. Bounded by
   * `signal` and the connect time limit; its size by the largest message, as a tool result's.
   *
   * @throws ProtocolError the upstream's own JSON-RPC error (an unknown resource, bad params);
   *   CallFailure for anything else (degraded, unreachable, 401/403, not MCP); the signal's reason
   *   when it was aborted.
   */
  async request(
    method: string,
    params: Record<string, unknown>,
    credential: string | undefined,
    options: { signal?: AbortSignal | undefined; provider?: string | undefined } = {},
  ): Promise<unknown> {
    const { signal, provider } = options;
    const wait = this.#breaker.refusal();
    if (wait !== undefined) {
      throw new CallFailure(
        `The upstream MCP server of source "${this.id}" is degraded: its recent calls failed (${this.#breaker.health().lastError ?? 'unknown reason'}). The gateway tries it again in ${wait} s.`,
        'Upstream degraded',
      );
    }
    return this.#ownRequest(async () => {
      for (let attempt = 0; ; attempt++) {
        const connection = await this.#checkout(credential, undefined, provider);
        try {
          const answer = await connection.client.request({ method, params }, AS_SENT, {
            timeout: CONNECT_TIMEOUT_MS,
            ...(signal === undefined ? {} : { signal }),
          });
          this.#breaker.success();
          return answer;
        } catch (error) {
          if (signal?.aborted === true) {
            if (!connection.modern) connection.closed = true;
            throw signal.reason;
          }
          if (this.#closed) throw this.#removed();
          // A session the upstream forgot (it restarted) is replaced and asked again, once: these
          // requests read, so sending one again is safe however far it got.
          if (attempt === 0 && staleSession(error, connection) !== undefined) {
            connection.closed = true;
            this.#connections.dropIdle();
            continue;
          }
          if (error instanceof ProtocolError) {
            // It answered, as MCP has it: its refusal is the caller's to read.
            this.#breaker.success();
            throw error;
          }
          throw this.#failure(error, provider, connection);
        } finally {
          this.#connections.checkin(connection);
        }
      }
    });
  }

  /**
   * After a call on a stdio process reached the time limit: a process that does not answer a
   * ping either is stopped (and reaped), and the next call starts it again.
   */
  #checkAnswering(connection: Connection): void {
    connection.client.ping({ timeout: PING_TIMEOUT_MS }).catch(() => {
      if (connection.closed) return;
      this.#options.logger.warn('upstream process stopped: it no longer answers', {
        sourceId: this.id,
      });
      void closeQuietly(connection);
    });
  }

  /** The tool path a question names: the served path of the tool `call` runs. */
  #toolPathOf(call: SourceCall): string {
    return this.#paths.get(call) ?? this.id;
  }

  /**
   * Runs `work`, a request of the gateway's own that is no call's, outside every call's frame, and
   * counted: a stdio process's message cannot be told to be its lone call's while one is in flight.
   */
  async #ownRequest<T>(work: () => Promise<T>): Promise<T> {
    let settle: (answered: boolean) => void = () => {};
    const outcome = new Promise<boolean>((resolve) => {
      settle = resolve;
    });
    this.#ownRequests.add(outcome);
    try {
      const result = await this.#current.exit(work);
      settle(true);
      return result;
    } catch (error) {
      // The upstream's own JSON-RPC error is an answer too: its handler finished.
      settle(error instanceof ProtocolError);
      throw error;
    } finally {
      this.#ownRequests.delete(outcome);
    }
  }

  /**
   * The call a question or log line of the upstream belongs to, if it can be told: over HTTP, the
   * call whose own request stream carried it, while it runs (never the session's GET stream, nor
   * a request that is no call's); over stdio, the one call the process serves, while it serves
   * nothing else.
   */
  #callOf(): SourceCall | undefined {
    if (this.#options.target.kind === 'stdio') {
      const alone = this.#stdioCalls.size === 1 && this.#ownRequests.size === 0;
      const [call] = alone ? this.#stdioCalls.keys() : [];
      return call;
    }
    return this.#current.getStore();
  }

  /**
   * The call a question or sampling request of the upstream belongs to, as {@link #callOf}, except
   * that a stdio process's, asked while it serves one call and requests of the gateway's own, is
   * held until it can be told whose it is (`heldQuestionOwner`).
   */
  #questionOf(): SourceCall | undefined | Promise<SourceCall | undefined> {
    if (this.#options.target.kind !== 'stdio' || this.#ownRequests.size === 0) {
      return this.#callOf();
    }
    const [only] = this.#stdioCalls;
    if (only === undefined || this.#stdioCalls.size > 1) return undefined;
    const [call, { ended }] = only;
    return heldQuestionOwner(call, ended, [...this.#ownRequests], () => this.#stdioCalls.has(call));
  }

  /**
   * Passes on to `call`'s client the progress reports its request's progress token names. Over
   * HTTP only those on the call's own stream: the token is no secret from the upstream, which
   * could otherwise tell one call's client anything from the session's GET stream or another
   * call's stream.
   */
  #progressTo(call: SourceCall) {
    const report = progressTo(call);
    if (this.#options.target.kind === 'stdio') return report;
    return (progress: { progress: number; total?: number; message?: string }) => {
      if (this.#current.getStore() === call) report(progress);
    };
  }

  /**
   * `work` (a call's wait for approval), ended with the "source removed" failure as soon as the
   * source is removed: the call ends, and with it the approval, which then can never run it.
   */
  async untilRemoved<T>(work: Promise<T>): Promise<T> {
    if (this.#closed) throw this.#removed();
    let onRemoved: (() => void) | undefined;
    const removed = new Promise<never>((_, reject) => {
      onRemoved = () => reject(this.#removed());
      this.#removal.signal.addEventListener('abort', onRemoved, { once: true });
    });
    try {
      return await Promise.race([work, removed]);
    } finally {
      if (onRemoved !== undefined) this.#removal.signal.removeEventListener('abort', onRemoved);
    }
  }

  /** Closes every connection (and stops a stdio upstream's process). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#removal.abort();
    this.#refusals.close();
    this.#listChanged.close();
    await this.#connections.close();
    await this.#fetch?.close().catch(() => {});
  }

  /**
   * A connection for `credential`; `signal` (a call's stop) gives up waiting for one. An open
   * 2026-07-28 client is given at once, not through a promise (issue 37).
   */
  #checkout(
    credential: string | undefined,
    signal: AbortSignal | undefined,
    provider?: string | undefined,
  ): Connection | Promise<Connection> {
    if (this.#closed) return Promise.reject(this.#removed());
    if (this.#options.target.kind === 'stdio') return this.#connections.stdio();
    let found: Connection | Promise<Connection>;
    try {
      found = this.#connections.checkout(credential, signal);
    } catch (error) {
      found = Promise.reject(error);
    }
    return found instanceof Promise ? this.#waitFor(found, signal, provider) : found;
  }

  /**
   * {@link #checkout} for `call`: an open 2026-07-28 client at once; a wait for one (a connect, a
   * 2025 session) is given up when the call is stopped, through a signal made only for the wait.
   */
  #checkoutFor(
    credential: string | undefined,
    call: SourceCall,
    provider: string | undefined,
  ): Connection | Promise<Connection> {
    if (this.#options.target.kind === 'stdio' || this.#closed) {
      return this.#checkout(credential, undefined, provider);
    }
    const open = this.#connections.open(credential);
    if (open !== undefined) return open;
    const stop = signalOf(call);
    // In the call's context, as before issue 37's change: a connect opened now (a 2025 session's
    // stream among it) runs in it.
    const found = this.#current.run(call, () => this.#checkout(credential, stop.signal, provider));
    if (!(found instanceof Promise)) {
      stop.off();
      return found;
    }
    return found.finally(stop.off);
  }

  /** {@link #checkout}'s wait for a connection being opened, or a 2025 session. */
  async #waitFor(
    connecting: Promise<Connection>,
    signal: AbortSignal | undefined,
    provider: string | undefined,
  ): Promise<Connection> {
    try {
      return await connecting;
    } catch (error) {
      if (signal?.aborted === true) throw signal.reason;
      throw this.#failure(error, provider, undefined);
    }
  }

  #removed(): CallFailure {
    return new CallFailure(
      `Source "${this.id}" was removed from the gateway; its tools are no longer served.`,
      'Source removed',
    );
  }

  #connect(
    key: string,
    credential: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Connection> {
    const { target, logger, maxBytes, messageTimeoutMs, connectTimeoutMs } = this.#options;
    // Closing stops a connect in progress too: the connections it waits for are not yet pooled.
    const stopped = eitherSignal(this.#removal.signal, signal);
    return openConnection({
      id: this.id,
      target,
      logger,
      maxBytes,
      messageTimeoutMs,
      connectTimeoutMs,
      fetch: this.#fetch,
      relay: {
        callOf: () => this.#callOf(),
        questionOf: () => this.#questionOf(),
        toolPathOf: (call) => this.#toolPathOf(call),
        // What the upstream says of its lists is no call's: what it sets off (a refresh timer)
        // must not carry the frame of the call whose stream it came on.
        onToolsChanged: () => this.#current.exit(() => this.#options.onToolsChanged()),
        onNotice: (notice) => this.#current.exit(() => this.#options.onNotice?.(notice)),
        refused: (method) => this.#refusals.refused(method),
        sourceId: this.id,
        settings: () =>
          this.#options.relaySettings?.() ?? { allowElicitation: true, allowSampling: true },
      },
      key,
      credential,
      signal: stopped.signal,
      prior: this.#era,
      onEra: (era) => {
        this.#era = era;
      },
      onExit: (reason) => {
        if (!this.#closed) this.#processDown = reason;
      },
    }).finally(stopped.release);
  }

  /**
   * The failure of a call sent on a kept session that broke, where sending it again could run
   * the tool twice. Not counted against the upstream: a fresh session says whether it is down.
   */
  #staleFailure(error: unknown, provider: string | undefined): CallFailure {
    this.#breaker.abandon();
    if (judgeFailure(error, this.id, provider).fault === undefined) this.#breaker.success();
    return new CallFailure(
      `The upstream MCP server of source "${this.id}" lost the session the call went on (${reasonOf(error)}); the call may or may not have run there, so it was not sent again. The next call opens a new session.`,
      'Upstream session lost',
    );
  }

  /**
   * A {@link CallFailure} for `error`, counted against the upstream when it is the upstream's fault.
   * A 2026-07-28 connection that failed below MCP is given to no new call, and the upstream asked
   * again at the next connect which revision it speaks (it may have been replaced by a 2025
   * server). The calls in flight on it (other users' too) go on to their own end: it is closed when
   * the last lets go (`Connections.checkin`), since one answer that is not MCP says nothing of the
   * others.
   */
  #failure(
    error: unknown,
    provider: string | undefined,
    connection: Connection | undefined,
  ): CallFailure {
    if (error instanceof CallFailure) return error;
    const judged = judgeFailure(error, this.id, provider);
    if (judged.fault === undefined) this.#breaker.success();
    // A kept session that broke says little about the upstream: only a fresh one's failure counts.
    else if (connection?.kept === true && judged.belowMcp) this.#breaker.abandon();
    else this.#breaker.failure(judged.fault);
    // A session that failed below MCP is not trusted with another call: the next one opens a
    // fresh session, whose failure counts.
    if (judged.belowMcp && connection !== undefined && connection.process === undefined) {
      connection.closed = true;
    }
    if (judged.belowMcp && connection?.modern === true) {
      connection.closed = true;
      this.#era = undefined;
    }
    return judged.failure;
  }
}

/** A kept session failed while listing: it is replaced and the list asked for again. */
class StaleSession extends Error {}

/**
 * Whether `error` says a kept 2025 session is gone, and how: `refused` when the upstream refused
 * the request for its session (HTTP 404, or 400 naming the session) or could not be reached at
 * all, so the request did nothing; `broken` when the connection failed in a way that may have
 * come after the request was delivered. Undefined for anything else, and for a fresh session,
 * whose failure is the upstream's own.
 */
function staleSession(error: unknown, connection: Connection): 'refused' | 'broken' | undefined {
  if (connection.modern || connection.kept !== true || connection.process !== undefined) {
    return undefined;
  }
  const status = httpStatusOf(error);
  if (status === 404) return 'refused';
  if (status === 400 && /session/i.test(httpTextOf(error))) return 'refused';
  if (status !== undefined) return undefined;
  const reason = reasonOf(error);
  if (/ECONNREFUSED/.test(reason)) return 'refused';
  if (/dropped the connection|closed the connection|cannot be reached/.test(reason)) {
    return 'broken';
  }
  return undefined;
}

/** Passes the upstream's progress reports on to the call's client. */
function progressTo(call: SourceCall) {
  return (progress: { progress: number; total?: number; message?: string }) =>
    call.reportProgress(progress.progress, progress.total, progress.message);
}

export { UpstreamRefusedFailure };

/** A stdio call's end, told once. */
function callEnd(): { ended: Promise<void>; end: () => void } {
  let end: () => void = () => {};
  const ended = new Promise<void>((resolve) => {
    end = resolve;
  });
  return { ended, end };
}
