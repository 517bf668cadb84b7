import type { PluginContext, SampleRequest, SampleResult } from '@gateway/sdk';
import type { Role } from '@gateway/sdk/kernel';
import type {
  CallToolResult,
  InputRequiredResult,
  LoggingLevel,
} from '@modelcontextprotocol/server';
import type { ServerLogger } from '../../http/logger.js';
import { OnceStop } from '../../http/once-stop.js';
import type { MountedTool } from '../../registry/index.js';
import { type SourceCall, Stopped } from '../../tool-sources/index.js';
import type { CallRedaction } from '../call-redaction.js';
import type { CallContext, CallSite } from '../call-site.js';
import { subjectId } from '../principal.js';
import { errorResult } from '../render-result.js';
import type { McpRuntime } from '../runtime.js';
import type { CallRecord } from './call-record.js';
import { MAX_CALL_ROUNDS, type PendingSlot, type UrlElicitation } from './elicitation.js';
import { Elicitor } from './elicitor.js';
import { ProgressReporter } from './progress.js';
import { askClient, type Round } from './rounds.js';
import { Sampler } from './sampler.js';
import { TimeLimit } from './time-limit.js';
import { clientLogLevel, lazyLogger, passesClient, toolLogger } from './tool-logger.js';

/** The most questions and sampling requests one call may put (elicitation.ts). */
export { MAX_CALL_ROUNDS };

/** The abort reason once a call is over (no Error: building its stack on every call costs). */
const CALL_ENDED = Symbol('call ended');

/** What a {@link RunningCall} is made from. */
export interface RunningCallOptions {
  runtime: McpRuntime;
  site: CallSite;
  ctx: CallContext;
  tool: MountedTool;
  role: Role;
  record: CallRecord;
  round: Round | undefined;
  args: Record<string, unknown>;
}

/**
 * One call while its source runs: the time limit and cancellation (`signal`), progress,
 * questions and sampling, logging, and credentials scoped to the source's providers and masked
 * once vended (the "authorize credentials" stage). It is the {@link SourceCall} a source gets, and
 * a plugin handler's `call` argument, so a call allocates it once.
 */
export class RunningCall implements SourceCall {
  readonly redaction: CallRedaction;
  readonly reportProgress: (progress: number, total?: number, message?: string) => void;
  readonly #options: RunningCallOptions;
  /**
   * The call's stop: its time limit, its client, or its end (silent: its listeners are not told).
   * The call's signal is made when something first reads it: a plugin call whose handler never
   * does (most) skips making it, and its `abort` event when the call ends (issue 37).
   */
  readonly #stop: OnceStop;
  readonly #limit: TimeLimit;
  readonly #progress: ProgressReporter;
  readonly #pending: PendingSlot = { current: undefined, asked: 0 };
  /** Made when the call first asks something: most calls never do (issue 37). */
  #elicitor: Elicitor | undefined;
  readonly #release: ReturnType<typeof setTimeout> | undefined;
  #sampler: Sampler | undefined;
  #log: ServerLogger | undefined;
  /** Stops listening to the request's stop, when the context's `onStop` listens. */
  #stopListening: (() => void) | undefined;
  /** The ids of the links shown to a session client, until the upstream says each is done. */
  #linksShown: Set<string> | undefined;
  /** Work put off until the source's request is written ({@link afterSent}), while it is sending. */
  #untilSent: (() => void)[] | undefined;
  /** Made when first read ({@link context}). */
  #context: PluginContext | undefined;

  constructor(options: RunningCallOptions) {
    const { runtime, ctx, record } = options;
    this.#options = options;
    this.#stop = new OnceStop(this.#listenerFailed);
    this.#limit = new TimeLimit(
      runtime.options.toolTimeoutMs,
      () => this.#stop.stop(new Stopped('timeout')),
      runtime.callTimer,
    );
    // Heard without making the request's signal when the context can tell (a direct call).
    if (ctx.onStop !== undefined) this.#stopListening = ctx.onStop(this.#clientGone);
    else {
      if (ctx.mcpReq.signal.aborted) this.#clientGone();
      ctx.mcpReq.signal.addEventListener('abort', this.#clientGone, { once: true });
    }
    const { redaction } = record;
    this.redaction = redaction;
    this.#progress = new ProgressReporter(ctx, redaction.text);
    this.reportProgress = this.#progress.report;
    this.#release = releaseStreamLater(runtime, ctx);
  }

  /**
   * What a plugin handler gets as its `ctx`: made when first read, since an upstream's call
   * without credentials never reads it (its resolver and closures were ~1-2 k instructions of
   * every federated call's request turn, issue 37).
   */
  get context(): PluginContext {
    if (this.#context !== undefined) return this.#context;
    const { runtime, site, ctx, tool, role } = this.#options;
    const { redaction } = this;
    const subject = subjectId(site.principal);
    this.#context = {
      userId: subject,
      role,
      // A source that is gone meanwhile declares nothing, so it gets nothing.
      auth: runtime.services.tokens.resolverFor(subject, tool.source.credentials, {
        onVended: (token) => redaction.remember(token),
      }),
      elicit: (request) => this.#elicitorNow().elicit(redaction.data(request)),
      logger: lazyLogger(() => toolLogger(this.log, site, tool, ctx, redaction)),
    };
    return this.#context;
  }

  /** Aborted when the call is stopped (its time limit, the client) or ends. */
  get signal(): AbortSignal {
    return this.#stop.signal;
  }

  /**
   * `work`, or a rejection with the reason the call stopped, if it stops first. A handler that
   * ignores the stop keeps running; its late outcome must not go unhandled.
   */
  untilStopped<T>(work: Promise<T>): Promise<T> {
    return this.#stop.untilStopped(work);
  }

  /** Tells `listener` when the call is stopped (its time limit, the client); not of its end. */
  onStop(listener: (reason: unknown) => void): () => void {
    return this.#stop.onStop(listener);
  }

  /**
   * What a stop listener threw. One that throws must not keep the next from hearing, nor escape
   * into what stopped the call (the time limit's timer, the client's abort). Its error may hold
   * anything the source had, a credential included: only its kind is logged.
   */
  readonly #listenerFailed = (error: unknown): void => {
    this.log.warn('call stop listener failed', {
      error: error instanceof Error ? error.name : typeof error,
    });
  };

  /**
   * The call's elicitor, made on first use. The record reads its last answer (`decision()`): one
   * never made has none, as one made and never asked has none.
   */
  #elicitorNow(): Elicitor {
    if (this.#elicitor !== undefined) return this.#elicitor;
    const { runtime, site, ctx, tool, record, round } = this.#options;
    const elicitor = new Elicitor({
      runtime,
      site,
      ctx,
      // Read when asked, not now: the id is made on first use (`CallRecord.id`).
      executionId: () => record.id,
      toolPath: tool.path,
      answers: round?.late === false ? round.answers : [],
      limit: this.#limit,
      // Read when the elicitor asks something, not now: see `signal`.
      signal: () => this.signal,
      progress: this.#progress,
      pending: this.#pending,
      onWaiting: (waiting) =>
        record.write(
          waiting
            ? { durationMs: record.elapsed(), approval: 'pending' }
            : { durationMs: record.elapsed(), ...record.decision() },
        ),
    });
    record.elicitor = elicitor;
    this.#elicitor = elicitor;
    return elicitor;
  }

  /** The call's execution id, made when first read (`CallRecord.id`). */
  get executionId(): string {
    return this.#options.record.id;
  }

  /** The server log for this call, made on first use: most calls log nothing. */
  get log(): ServerLogger {
    const { runtime, tool, record } = this.#options;
    this.#log ??= runtime.services.logger.child({
      tool: tool.path,
      executionId: record.id,
      userId: subjectId(this.#options.site.principal),
    });
    return this.#log;
  }

  /** Whether the tool asked the client something that ends this round (`input_required`). */
  get questionPending(): boolean {
    return this.#pending.current !== undefined;
  }

  get takesLinks(): boolean {
    return this.#elicitorNow().takesLinks;
  }

  get takesProgress(): boolean {
    return this.#progress.wanted;
  }

  get clientLogLevel(): LoggingLevel | undefined {
    return clientLogLevel(this.#options.site, this.#options.ctx);
  }

  readonly sample = (request: SampleRequest): Promise<SampleResult> => {
    const { runtime, site, ctx, tool, record, round } = this.#options;
    const asked = record.redaction.data(request);
    this.#sampler ??= new Sampler({
      runtime,
      site,
      ctx,
      executionId: record.id,
      toolPath: tool.path,
      samples: round?.late === false ? round.samples : [],
      limit: this.#limit,
      signal: this.signal,
      pending: this.#pending,
    });
    return this.#sampler.sample(asked);
  };

  elicitUrl(asked: UrlElicitation): Promise<'accept' | 'decline' | 'cancel'> {
    const shown = this.redaction.data(asked);
    // Only a session client is shown the link with its id, so only it hears when it is done.
    if (this.takesLinks) {
      this.#linksShown ??= new Set();
      this.#linksShown.add(shown.elicitationId);
    }
    return this.#elicitorNow().elicitUrl(shown);
  }

  forwardLinkDone(elicitationId: string): void {
    // Masked as the id was when shown; one the client was never shown is not passed on.
    const shown = this.redaction.text(elicitationId);
    if (this.#linksShown?.delete(shown) !== true) return;
    void this.#options.ctx.mcpReq
      .notify({ method: 'notifications/elicitation/complete', params: { elicitationId: shown } })
      // A notification to a client that has gone is dropped: the call's answer still settles.
      .catch(() => {});
  }

  forwardLog(level: LoggingLevel, data: unknown, logger?: string): void {
    const { site, ctx, tool, record } = this.#options;
    if (!passesClient(site, ctx, level)) return;
    void ctx.mcpReq
      .notify({
        method: 'notifications/message',
        params: { level, logger: logger ?? tool.path, data: record.redaction.value(data) },
      })
      // A notification to a client that has gone is dropped: the call's answer still settles.
      .catch(() => {});
  }

  /** Ends the round with what the tool asked, once the record says the call is waiting. */
  async askClient(): Promise<InputRequiredResult | CallToolResult> {
    const { runtime, site, tool, args, record, round } = this.#options;
    const asking = this.#pending.current;
    const answers = this.#elicitorNow().answers;
    const samples = this.#sampler?.samples ?? (round?.late === false ? round.samples : []);
    // Every round runs the tool again and carries every answer so far: a tool (or an upstream
    // behind it) that asks something new each time must end, not grow its state forever.
    if (answers.length + samples.length >= MAX_CALL_ROUNDS) {
      return record.finish(
        'error',
        errorResult(
          `${tool.path} kept asking questions (more than ${MAX_CALL_ROUNDS} in one call), so it was stopped. Call the tool again to start over; if it keeps happening, report it to whoever maintains the tool.`,
        ),
        `Asked more than ${MAX_CALL_ROUNDS} questions in one call`,
      );
    }
    const result = await askClient(runtime, site, tool, args, {
      executionId: record.id,
      startedAt: record.startedAt,
      pending: this.#pending,
      answers,
      samples,
    });
    return record.settle(result, asking?.kind === 'question' ? { approval: 'pending' } : {});
  }

  /** The source is sending its request (see `SourceCall.sending`): answers its "sent" call. */
  sending(): () => void {
    this.#untilSent ??= [];
    return this.#sent;
  }

  /**
   * Runs `work` once the source's request is written, when the source said it is sending one in
   * its synchronous start (an upstream's plain call: undici writes it from the event loop's check
   * phase, so the work runs while the upstream works, issue 37), else at once. Work still waiting
   * when the call ends runs then (a request that never went out). Work that throws is logged and
   * goes no further ({@link #runPutOff}).
   */
  afterSent(work: () => void): void {
    if (this.#untilSent === undefined) this.#runPutOff(work);
    else this.#untilSent.push(work);
  }

  readonly #sent = () => {
    const waiting = this.#untilSent;
    this.#untilSent = undefined;
    if (waiting !== undefined) for (const work of waiting) this.#runPutOff(work);
  };

  /**
   * Runs work put off by {@link afterSent}, which runs inside undici's callback for the written
   * request: a throw there would make undici abort that request, already with the upstream, and
   * fail the call as if the upstream had; at the call's end it would replace its answer. So a
   * failure is logged, and the call (whose final record is committed as always) goes on.
   */
  #runPutOff(work: () => void): void {
    try {
      work();
    } catch (error) {
      this.log.warn('call work put off until its request was sent failed', {
        error: error instanceof Error ? error.name : typeof error,
      });
    }
  }

  /** Stops the clock and everything still running for the call. */
  end(): void {
    this.#sent();
    this.#limit.clear();
    if (this.#release !== undefined) clearTimeout(this.#release);
    const stopListening = this.#stopListening;
    if (stopListening !== undefined) stopListening();
    else this.#options.ctx.mcpReq.signal.removeEventListener('abort', this.#clientGone);
    this.#stop.end(CALL_ENDED);
  }

  readonly #clientGone = () => this.#stop.stop(new Stopped('cancelled'));
}

/**
 * Closes the call's SSE stream once it has run `releaseStreamAfterMs` (SEP-1699 polling): the
 * client reconnects with `Last-Event-ID` and gets what it missed, then the result, from the
 * session's event store. Only 2025-11-25 sessions can resume, so only they get the callback.
 */
function releaseStreamLater(
  runtime: McpRuntime,
  ctx: CallContext,
): ReturnType<typeof setTimeout> | undefined {
  const after = runtime.options.releaseStreamAfterMs;
  const close = ctx.http?.closeSSE;
  if (after === undefined || close === undefined) return undefined;
  const timer = setTimeout(close, after);
  timer.unref?.();
  return timer;
}
