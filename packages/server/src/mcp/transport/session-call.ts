import {
  type CallToolRequestParams,
  type CallToolResult,
  type InputRequiredResult,
  isInputRequiredResult,
} from '@modelcontextprotocol/server';
import { OnceStop } from '../../http/once-stop.js';
import { callTool } from '../call/call-tool.js';
import type { CallContext, CallSite } from '../call-site.js';
import type { CallHandover, McpRuntime } from '../runtime.js';
import { GatherClock } from './gather-clock.js';
import { GATHER_MS, isPlainLegacyRequest } from './session-http.js';
import type { SessionPost } from './sessions/index.js';
import type { Session } from './sessions/session.js';

/** A 2025 session's plain `tools/call` ({@link sessionCallOf}). */
export interface SessionCall {
  id: string | number;
  params: CallToolRequestParams;
}

/**
 * The call when `post` is the plain `tools/call` of a 2025 session that the gateway may start
 * without the session's transport, else `undefined`: one request with exactly `jsonrpc`, `id`,
 * `method` and `params` (`isPlainLegacyRequest`), `params` with `name` and, if given,
 * `arguments` (an object without an argument named `__proto__`) and nothing else (no `_meta`, so
 * no progress token), and the `Accept` the transport insists on. Such a request is one the
 * session's server accepts as it stands, which a handover (see {@link answerSessionCall}) relies
 * on. Anything else takes the transport's way, as before.
 */
export function sessionCallOf(
  request: Request,
  body: unknown,
  /** What `isPlainLegacyRequest(request, body)` answered, when the caller asked it already. */
  plain = isPlainLegacyRequest(request, body),
): SessionCall | undefined {
  if (request.method !== 'POST' || !plain) return undefined;
  const { method, id, params } = body as { method: string; id: string | number; params?: unknown };
  if (method !== 'tools/call' || !isPlain(params)) return undefined;
  for (const key in params) if (key !== 'name' && key !== 'arguments') return undefined;
  const { name, arguments: args } = params;
  if (typeof name !== 'string' || (args !== undefined && !isPlain(args))) return undefined;
  // The SDK's schema drops an argument named `__proto__`; its answer is the one given.
  if (args !== undefined && Object.hasOwn(args, '__proto__')) return undefined;
  if (!acceptsBoth(request.headers.get('accept') ?? '')) return undefined;
  return { id, params: args === undefined ? { name } : { name, arguments: args } };
}

/**
 * Answers a 2025 session's plain `tools/call` ({@link sessionCallOf}) without the session's
 * transport when it can, the way `direct-call.ts` answers a 2026-07-28 call: the SDK's transport
 * builds an event stream for every POST, with a priming event, an event id, SSE encoding and,
 * for an answer ready at once, `whenGathered` reading it all back to send the lone answer as
 * JSON; with the SDK's request dispatch and its schema checks of the request and the result,
 * about half of the gateway's CPU time for a session call (bench/mcp/README.md).
 *
 * The call starts at once through the same call path ({@link callTool}), with the session's
 * client capabilities and log level and the principal of this request. When it ends within
 * {@link GATHER_MS} having sent the client nothing, its answer goes out as the one JSON body the
 * transport's answer would have become. Otherwise the call is handed to the transport mid-call:
 * when it first needs the stream (a question asked with `elicitation/create`, a sampling
 * request, a log message or any other notification), when {@link GATHER_MS} have passed, or when
 * it ended in a way the SDK answers (an error, a round of questions). The POST is then served by
 * the transport as every other one is (`viaTransport`), and the session's `tools/call` handler
 * takes the running call over (`McpRuntime.handovers`) instead of starting it: the call's stream,
 * event ids, resumption, `closeSSE`, cancellation and answer are the SDK's, as before. What the
 * call asked the stream for waits for the handover and then goes out on it.
 *
 * Until then the session's own server does not know the call, so a `notifications/cancelled`
 * for it, or the session closing, stops it through the session's {@link SessionCalls}; a call
 * cancelled so gets no answer (as the SDK sends none), its POST an empty event stream. Undefined
 * when the POST is not such a call: the transport serves it.
 */
export async function answerSessionCall(
  runtime: McpRuntime,
  session: Session,
  post: SessionPost,
): Promise<Response | undefined> {
  const call = sessionCallOf(post.request, post.body, post.plain);
  if (call === undefined || session.transport.sessionId !== session.id) return undefined;
  // A stop of the call's own, heard by the call without an `AbortSignal` (`CallContext.onStop`),
  // as a 2026-07-28 direct call's: its signal is made only when read (issue 37).
  const stop = new OnceStop();
  if (!session.calls.add(call.id, stop)) return undefined;
  const started = performance.now();
  const link = new StreamLink(stop, started);
  const site: CallSite = {
    principal: session.principal,
    kind: 'session',
    clientCapabilities: () => session.server.getClientCapabilities(),
    sessionLogLevel: () => session.level.get(),
    authenticated: post.principal,
  };
  const ctx = link.context(call.id, runtime.options.releaseStreamAfterMs !== undefined);
  // Counted in flight as a POST the transport serves is (the session caps look at it).
  session.inFlight += 1;
  let running: Promise<CallToolResult | InputRequiredResult>;
  let first: CallToolResult | InputRequiredResult | undefined;
  try {
    running = callTool(runtime, site, call.params, ctx);
    first = await link.first(running, () => session.calls.delete(call.id, stop));
  } finally {
    session.inFlight -= 1;
  }
  if (first !== undefined && !link.wanted) {
    if (stop.stopped) return noAnswer(session);
    if (!isInputRequiredResult(first)) return answered(session, call.id, first);
  }
  // The transport takes the call over, what is left of the gathering time included.
  const left = link.gatherLeft();
  const response = await post.viaTransport(
    (served) => runtime.handovers.set(served, link.handover(running)),
    left,
  );
  // Refused by the transport (its handler never runs): the call is stopped.
  if (response.status !== 200) link.refused();
  return response;
}

/** The SDK's context of a call's request, which arrives when the transport takes the call over. */
interface Handover {
  promise: Promise<CallContext>;
  resolve: (ctx: CallContext) => void;
  reject: (error: Error) => void;
}

/** The deadlines of the calls gathering now, of every session (see {@link GatherClock}). */
const gathering = new GatherClock(GATHER_MS);

/**
 * How a call started without the session's transport reaches the stream: its context asks for
 * the stream ({@link StreamLink.context}), which the POST's answer waits on
 * ({@link StreamLink.first}), and the SDK's context of the same request, once the transport took
 * the call over ({@link StreamLink.handover}), serves what was asked.
 */
class StreamLink {
  readonly #stop: OnceStop;
  /** `performance.now()` when the call started: its gathering time runs from then. */
  readonly #started: number;
  /** Made when first needed: most calls never reach the stream. */
  #sdk: Handover | undefined;
  #want: (() => void) | undefined;
  /** The call asked for the stream. */
  wanted = false;

  constructor(stop: OnceStop, started: number) {
    this.#stop = stop;
    this.#started = started;
  }

  /** What is left of the call's {@link GATHER_MS}, for the transport that takes it over. */
  gatherLeft(): number {
    return Math.max(0, GATHER_MS - (performance.now() - this.#started));
  }

  /** Where the SDK's context arrives, once the transport took the call over. */
  #sdkContext(): Handover {
    if (this.#sdk === undefined) {
      let resolve!: (ctx: CallContext) => void;
      let reject!: (error: Error) => void;
      const promise = new Promise<CallContext>((resolved, rejected) => {
        resolve = resolved;
        reject = rejected;
      });
      // Nobody may be waiting when the transport refuses the POST.
      promise.catch(() => {});
      this.#sdk = { promise, resolve, reject };
    }
    return this.#sdk;
  }

  /** The SDK's context of the call's request, once the transport took the call over. */
  streamed(): Promise<CallContext> {
    if (!this.wanted) {
      this.wanted = true;
      this.#want?.();
    }
    return this.#sdkContext().promise;
  }

  /**
   * The call's result when it ends within {@link GATHER_MS} without asking for the stream;
   * undefined when it asks for it, when the time passes first, or when it fails (the SDK answers
   * the failure). The time is kept by the process's one {@link GatherClock}. `ended` runs when
   * the call ends, however it ends and whenever (after a handover too), before the result is
   * let out: one reaction to the call's promise serves both, where two cost a call a promise
   * and a microtask more (issue 37).
   */
  first(
    running: Promise<CallToolResult | InputRequiredResult>,
    ended: () => void,
  ): Promise<CallToolResult | InputRequiredResult | undefined> {
    if (this.wanted) {
      running.then(ended, ended);
      return Promise.resolve(undefined);
    }
    return new Promise((resolve) => {
      const settle = (result?: CallToolResult | InputRequiredResult) => {
        stopWaiting();
        this.#want = undefined;
        resolve(result);
      };
      const stopWaiting = gathering.after(() => settle(undefined), this.#started);
      // `settle` itself, called without a result, not a closure made for it: with
      // `() => settle(undefined)` here, every session call's objects survived two scavenges
      // and were promoted (~4.8 KB a call, bench/mcp/README.md `gc40`); with `settle`, 13 bytes.
      this.#want = settle;
      running.then(
        (result) => {
          ended();
          settle(result);
        },
        () => {
          ended();
          settle(undefined);
        },
      );
    });
  }

  /** What the session's `tools/call` handler runs instead of the call (the call itself). */
  handover(running: Promise<CallToolResult | InputRequiredResult>): CallHandover {
    return (ctx) => {
      const signal = ctx.mcpReq.signal;
      // Cancelled or closed from now on by the SDK.
      if (signal.aborted) this.#stop.stop(signal.reason);
      else signal.addEventListener('abort', () => this.#stop.stop(signal.reason), { once: true });
      this.#sdkContext().resolve(ctx);
      return running;
    };
  }

  /** The transport refused the POST: the call stops, and what waits for the stream fails. */
  refused(): void {
    const error = new Error('The session could not take the call over');
    this.#sdkContext().reject(error);
    this.#stop.stop(error);
  }

  /**
   * The call's context: what reaches the client (a notification, a question, a sampling
   * request) goes out on the stream once the transport took the call over. `closeSSE` (only when
   * streams are released, see `releaseStreamAfterMs`) closes that stream.
   */
  context(id: string | number, releasing: boolean): CallContext {
    const stop = this.#stop;
    return {
      mcpReq: new LinkedRequest(id, stop, () => this.streamed()),
      onStop: (listener) => stop.onStop(listener),
      ...(releasing
        ? { http: { closeSSE: () => void this.streamed().then((ctx) => ctx.http?.closeSSE?.()) } }
        : {}),
    };
  }
}

/**
 * The request a session call's context describes before (and after) the transport takes it over:
 * what reaches the client waits for the SDK's context of the same request. Its `signal` is made
 * when first read (see {@link OnceStop}).
 */
class LinkedRequest
  implements Pick<CallContext['mcpReq'], Exclude<keyof CallContext['mcpReq'], 'signal'>>
{
  readonly id: string | number;
  readonly _meta = undefined;
  readonly inputResponses = undefined;
  readonly #stop: OnceStop;
  readonly #sdk: () => Promise<CallContext>;

  constructor(id: string | number, stop: OnceStop, sdk: () => Promise<CallContext>) {
    this.id = id;
    this.#stop = stop;
    this.#sdk = sdk;
  }

  get signal(): AbortSignal {
    return this.#stop.signal;
  }

  requestState(): undefined {
    return undefined;
  }

  async notify(
    ...args: Parameters<CallContext['mcpReq']['notify']>
  ): ReturnType<CallContext['mcpReq']['notify']> {
    return (await this.#sdk()).mcpReq.notify(...args);
  }

  async elicitInput(
    ...args: Parameters<CallContext['mcpReq']['elicitInput']>
  ): ReturnType<CallContext['mcpReq']['elicitInput']> {
    return (await this.#sdk()).mcpReq.elicitInput(...args);
  }

  async requestSampling(
    ...args: Parameters<CallContext['mcpReq']['requestSampling']>
  ): ReturnType<CallContext['mcpReq']['requestSampling']> {
    return (await this.#sdk()).mcpReq.requestSampling(...args);
  }
}

/**
 * The call's answer as the one JSON body the transport's answer becomes (`whenGathered`), with
 * the same headers: no `Cache-Control`, which only the event streams carry.
 */
function answered(session: Session, id: string | number, result: CallToolResult): Response {
  // As the SDK puts a result without content on the wire.
  const sent = result.content === undefined ? { ...result, content: [] } : result;
  return new Response(JSON.stringify({ result: sent, jsonrpc: '2.0', id }), {
    status: 200,
    headers: { 'content-type': 'application/json', 'mcp-session-id': session.id },
  });
}

/** A cancelled call's POST: an event stream that ends without an answer. */
function noAnswer(session: Session): Response {
  return new Response(null, {
    status: 200,
    headers: {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      'mcp-session-id': session.id,
    },
  });
}

/** What the SDK's clients send, and most others: taken as it is, without two searches. */
const USUAL_ACCEPT = 'application/json, text/event-stream';

/** Whether `accept` names both types a session's POST may be answered with. */
function acceptsBoth(accept: string): boolean {
  return (
    accept === USUAL_ACCEPT ||
    (accept.includes('application/json') && accept.includes('text/event-stream'))
  );
}

function isPlain(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
