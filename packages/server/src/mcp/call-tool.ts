import {
  ApprovalDeniedError,
  AuthRequiredError,
  formatIssues,
  type PluginContext,
  type SampleRequest,
  type SchemaIssue,
  ToolError,
  UndeclaredProviderError,
  unknownKeyIssues,
  validateToolOutput,
  withUnknownKeyIssues,
} from '@gateway/sdk';
import {
  type CallToolRequestParams,
  type CallToolResult,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { ExecutionOutcome } from '../db/index.js';
import { type ExecutionRecord, newExecutionId } from '../executions/index.js';
import type { ServerLogger } from '../http/logger.js';
import type { MountedTool } from '../registry/index.js';
import { authRequiredMessage } from './auth-hint.js';
import { CallRedaction } from './call-redaction.js';
import type { CallSite } from './call-site.js';
import { ELICIT_KEY, type PendingSlot, toAnswer } from './elicitation.js';
import { Elicitor } from './elicitor.js';
import { principalKey, subjectId } from './principal.js';
import { ProgressReporter } from './progress.js';
import { errorResult, renderOutput } from './render-result.js';
import {
  type Answer,
  digestArguments,
  LATE_RETRY_GRACE_MS,
  type RoundState,
  roundStateSchema,
  type SampleAnswer,
} from './request-state.js';
import { useRound } from './round-store.js';
import { type McpRuntime, toolsOf } from './runtime.js';
import { Sampler } from './sampler.js';
import { TimeLimit } from './time-limit.js';
import { lazyLogger, toolLogger } from './tool-logger.js';

const INVALID_STATE = 'Invalid or expired requestState';
/** Shared, so a call to a tool that takes any key allocates nothing for the check. */
const NO_ISSUES: readonly SchemaIssue[] = Object.freeze([]);
/** The abort reason once a call is over (no Error: building its stack on every call costs). */
const CALL_ENDED = Symbol('call ended');

/** What the client hears when the user accepted an approval with `approve` unticked. */
function untickedMessage(toolPath: string): string {
  return `${toolPath} did not go ahead: the approval was accepted with "Approve" unticked, which counts as no, so nothing was changed. To go ahead, call the tool again and accept with "Approve" ticked; to stop, decline.`;
}

/** Why a handler stopped before returning, when it was not its own doing. */
class Stopped extends Error {
  readonly reason: 'timeout' | 'cancelled';

  constructor(reason: 'timeout' | 'cancelled') {
    super(reason);
    this.reason = reason;
  }
}

/**
 * Answers `tools/call`: finds the tool among the caller's (a tool outside the role is as unknown
 * as one that does not exist), validates the input, runs the handler with its context under a
 * time limit, validates and renders the output, and records the execution. Tool failures are
 * `isError` results; only a tool the caller cannot see, or forged request state, is a protocol
 * error.
 *
 * @throws ProtocolError `InvalidParams` for an unknown tool or an invalid `requestState`.
 */
export async function callTool(
  runtime: McpRuntime,
  site: CallSite,
  params: CallToolRequestParams,
  ctx: ServerContext,
): Promise<CallToolResult | InputRequiredResult> {
  const { services } = runtime;
  const subject = subjectId(site.principal);
  const { role, index } = await toolsOf(runtime, site.principal);
  const tool = index.byName.get(params.name);
  const args = params.arguments ?? {};
  if (tool === undefined) {
    // Committed like any answer; the answer is this error whether or not the record is stored.
    await services.executions
      .commit({
        id: newExecutionId(),
        userId: subject,
        toolPath: params.name.slice(0, 200),
        startedAt: new Date(),
        arguments: args,
        outcome: 'denied',
        durationMs: 0,
        error: 'No such tool for this caller',
      })
      .catch(() => {});
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${params.name} not found`);
  }

  const round = await continueRound(runtime, site, tool, args, ctx);
  const executionId = round?.state.executionId ?? newExecutionId();
  const startedAt = round ? new Date(round.state.startedAt) : new Date();
  const elapsed = () => Date.now() - startedAt.getTime();
  let elicitor: Elicitor | undefined;
  // Every value vended to this call is masked in everything the call lets out.
  const redaction = new CallRedaction(services.redactor);
  const stateOf = (end: Partial<ExecutionRecord>): ExecutionRecord => ({
    id: executionId,
    userId: subject,
    toolPath: tool.path,
    startedAt,
    arguments: redaction.data(args),
    ...end,
  });
  /** Queues a state of the call that needs no commit before anything is sent. */
  const record = (end: Partial<ExecutionRecord>) => services.executions.write(stateOf(end));
  /** Sends `result` only once the record of it is stored: no answer without its record. */
  const settle = async <R extends CallToolResult | InputRequiredResult>(
    end: Partial<ExecutionRecord>,
    result: R,
  ): Promise<R | CallToolResult> => {
    try {
      await services.executions.commit(stateOf(end));
      return result;
    } catch {
      return errorResult(
        `The gateway could not record this call of ${tool.path}, so its result is withheld. Execution id: ${executionId}; the gateway's log has the details.`,
      );
    }
  };
  const decision = (): Partial<ExecutionRecord> => {
    const answer = elicitor?.lastAnswer;
    return answer === undefined ? {} : { approval: answer.decision, approvedBy: answer.by };
  };
  const finish = (outcome: ExecutionOutcome, result: CallToolResult, error?: string) =>
    settle(
      {
        outcome,
        durationMs: elapsed(),
        ...decision(),
        ...(error === undefined ? {} : { error: redaction.text(error) }),
      },
      result,
    );
  if (round?.late === true) {
    const seconds = formatSeconds(runtime.options.approvalTimeoutMs);
    return settle(
      {
        outcome: 'timeout',
        durationMs: elapsed(),
        ...(round.state.kind === 'sampling' ? {} : { approval: 'expired' }),
        error: 'Question not answered in time',
      },
      errorResult(
        `${tool.path} asked a question that was not answered within ${seconds} s, so the call was stopped and nothing more was done. Call the tool again to start over.`,
      ),
    );
  }

  const input = await tool.tool.inputSchema.safeParseAsync(args);
  // A misspelled argument would otherwise be dropped and the tool run without it (issue 18).
  const unknown = tool.inputKeys === undefined ? NO_ISSUES : unknownKeyIssues(args, tool.inputKeys);
  if (!input.success || unknown.length > 0) {
    const issues = withUnknownKeyIssues(input.success ? [] : input.error.issues, unknown);
    const message = `Invalid arguments for ${params.name}:\n${formatIssues(issues)}`;
    return finish('error', errorResult(message), 'Invalid arguments');
  }
  // A retried round says how long the call has run: the sweeper of abandoned calls sees it alive.
  record(round === undefined ? {} : { durationMs: elapsed() });

  // Made on first use: most calls log nothing.
  let log: ServerLogger | undefined;
  const toolLog = () => {
    log ??= services.logger.child({ tool: tool.path, executionId, userId: subject });
    return log;
  };
  const controller = new AbortController();
  const limit = new TimeLimit(runtime.options.toolTimeoutMs, () =>
    controller.abort(new Stopped('timeout')),
  );
  const onClientGone = () => controller.abort(new Stopped('cancelled'));
  if (ctx.mcpReq.signal.aborted) onClientGone();
  ctx.mcpReq.signal.addEventListener('abort', onClientGone, { once: true });
  const progress = new ProgressReporter(ctx, redaction.text);
  const release = releaseStreamLater(runtime, ctx);
  const pending: PendingSlot = { current: undefined };
  elicitor = new Elicitor({
    runtime,
    site,
    ctx,
    executionId,
    toolPath: tool.path,
    answers: round?.answers ?? [],
    limit,
    signal: controller.signal,
    progress,
    pending,
    onWaiting: (waiting) =>
      record(
        waiting
          ? { durationMs: elapsed(), approval: 'pending' }
          : { durationMs: elapsed(), ...decision() },
      ),
  });
  // Made on first use: most tools never sample.
  let sampler: Sampler | undefined;
  const sample = (request: SampleRequest) => {
    const asked = redaction.data(request);
    sampler ??= new Sampler({
      runtime,
      site,
      ctx,
      executionId,
      toolPath: tool.path,
      samples: round?.samples ?? [],
      limit,
      signal: controller.signal,
      pending,
    });
    return sampler.sample(asked);
  };
  const { elicit } = elicitor;
  const ask = () =>
    askClient(runtime, site, tool, args, {
      executionId,
      startedAt,
      pending,
      answers: elicitor?.answers ?? [],
      samples: sampler?.samples ?? round?.samples ?? [],
      settle: (end, result) => settle({ durationMs: elapsed(), ...end }, result),
    });
  const pluginContext: PluginContext = {
    userId: subject,
    role,
    // A plugin that is gone meanwhile declares nothing, so it gets nothing.
    auth: redaction.watch(
      services.tokens.resolverFor(subject, {
        id: tool.pluginId,
        authProviders: services.plugins.plugin(tool.pluginId)?.authProviders ?? [],
      }),
    ),
    elicit: (request) => elicit(redaction.data(request)),
    logger: lazyLogger(() => toolLogger(toolLog(), site, tool, ctx, redaction)),
  };

  try {
    const output = await untilAborted(
      tool.tool.handler(pluginContext, input.data, {
        signal: controller.signal,
        executionId,
        reportProgress: progress.report,
        sample,
      }),
      controller.signal,
    );
    if (pending.current !== undefined) return await ask();
    const checked = await validateToolOutput(tool.tool, output);
    if (!checked.success) {
      toolLog().error('tool output does not match its output schema', {
        issues: redaction.text(formatIssues(checked.issues)),
      });
      return finish(
        'error',
        errorResult(
          `${tool.path} returned a result that does not match its output schema. Execution id: ${executionId}.`,
        ),
        'Output does not match the output schema',
      );
    }
    // Masked for the client too: a prompt-injected model could ask a tool to echo its key.
    return finish(
      'ok',
      redaction.data(renderOutput(checked.data, index.structured.has(params.name))),
    );
  } catch (error) {
    // The handler asked something (it may have caught the stop signal and thrown another error).
    if (pending.current !== undefined) return await ask();
    if (error instanceof Stopped && error.reason === 'timeout') {
      const seconds = formatSeconds(runtime.options.toolTimeoutMs);
      return finish(
        'timeout',
        errorResult(`${tool.path} did not finish within ${seconds} s and was stopped.`),
        'Time limit reached',
      );
    }
    if (error instanceof Stopped) {
      return finish(
        'error',
        errorResult('The call was cancelled by the client.'),
        'Cancelled by the client',
      );
    }
    if (ApprovalDeniedError.isInstance(error)) {
      const message =
        elicitor?.lastAnswer?.reason === 'approve_unticked'
          ? untickedMessage(tool.path)
          : redaction.message(error.message);
      return finish('denied', errorResult(message), message);
    }
    if (ToolError.isInstance(error)) {
      const message = redaction.message(error.message);
      return finish('error', errorResult(message), message);
    }
    if (UndeclaredProviderError.isInstance(error)) {
      // A bug in the plugin, not the user's to fix: the log tells the operator too.
      // The message, not error.provider: it leaves out a value that is no provider id.
      toolLog().warn('tool asked for a credential its plugin does not declare', {
        reason: redaction.text(error.message),
      });
      const message = redaction.message(error.message);
      return finish('error', errorResult(message), message);
    }
    if (AuthRequiredError.isInstance(error)) {
      const message = redaction.message(authRequiredMessage(error, services.baseUrl));
      return finish('error', errorResult(message), `No credential for ${error.provider}`);
    }
    toolLog().error('tool failed', {
      error: redaction.text(
        error instanceof Error ? (error.stack ?? error.message) : String(error),
      ),
    });
    return finish(
      'error',
      errorResult(
        `${tool.path} failed unexpectedly. The details are in the gateway's log under execution id ${executionId}.`,
      ),
      'Unexpected error',
    );
  } finally {
    limit.clear();
    if (release !== undefined) clearTimeout(release);
    ctx.mcpReq.signal.removeEventListener('abort', onClientGone);
    controller.abort(CALL_ENDED);
  }
}

/** A retried call's round: its verified state and every answer so far, or too late for any. */
type Round =
  | { late: false; state: RoundState; answers: Answer[]; samples: SampleAnswer[] }
  | { late: true; state: RoundState };

/**
 * A retried call's verified state, with the answer the retry brings, or undefined for a first
 * call. Every retry uses its round up, on every instance: a replay of the same state, with or
 * without an answer, is refused. A retry without an answer counts as the user cancelling (the
 * client's model not answering, for sampling); one after the answer time is `late`.
 *
 * @throws ProtocolError `InvalidParams` for state that is forged, expired past its grace, issued
 *   to another caller, tool or arguments, or used before.
 */
async function continueRound(
  runtime: McpRuntime,
  site: CallSite,
  tool: MountedTool,
  args: Record<string, unknown>,
  ctx: ServerContext,
): Promise<Round | undefined> {
  const raw = ctx.mcpReq.requestState();
  if (raw === undefined) return undefined;
  // The SDK has checked the signature and expiry (the codec is its verify hook).
  const parsed = roundStateSchema.safeParse(raw);
  if (
    !parsed.success ||
    parsed.data.principal !== principalKey(site.principal) ||
    parsed.data.tool !== tool.path ||
    parsed.data.argsDigest !== digestArguments(args)
  ) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, INVALID_STATE);
  }
  const state = parsed.data;
  const { services } = runtime;
  const used = await useRound(services.database.db, {
    id: state.questionId,
    executionId: state.executionId,
    expiresAt: new Date(state.answerBy + LATE_RETRY_GRACE_MS),
  });
  if (!used) throw new ProtocolError(ProtocolErrorCode.InvalidParams, INVALID_STATE);
  const now = new Date();
  if (now.getTime() > state.answerBy) return { late: true, state };

  const response = inputResponse(ctx.mcpReq.inputResponses, ELICIT_KEY);
  if (state.kind === 'sampling') {
    const sample: SampleAnswer =
      response.kind === 'sampling' ? { ok: true, result: response.result } : { ok: false };
    return { late: false, state, answers: state.answers, samples: [...state.samples, sample] };
  }
  const by = subjectId(site.principal);
  const answer: Answer =
    response.kind === 'missing'
      ? { ok: false, decision: 'cancelled', by }
      : toAnswer(state.kind, response, by);
  // The approvals list shows answers given in the AI client too.
  await services.approvals.recordAnswered({
    id: state.questionId,
    executionId: state.executionId,
    userId: by,
    toolPath: tool.path,
    message: state.message,
    args: {},
    createdAt: new Date(state.startedAt),
    expiresAt: new Date(state.answerBy),
    status: answer.ok ? 'approved' : 'denied',
    decidedBy: by,
    decidedAt: now,
  });
  return { late: false, state, answers: [...state.answers, answer], samples: state.samples };
}

/** What {@link askClient} carries into the next round. */
interface RoundEnd {
  executionId: string;
  startedAt: Date;
  pending: PendingSlot;
  answers: readonly Answer[];
  samples: readonly SampleAnswer[];
  /** Sends the result once the execution record (still without an outcome) is stored. */
  settle: (
    end: Partial<ExecutionRecord>,
    result: InputRequiredResult,
  ) => Promise<InputRequiredResult | CallToolResult>;
}

/**
 * Ends a round with what the handler asked: `input_required` with the question (an elicitation)
 * or the sampling request, and signed state for the retry.
 */
async function askClient(
  runtime: McpRuntime,
  site: CallSite,
  tool: MountedTool,
  args: Record<string, unknown>,
  end: RoundEnd,
): Promise<InputRequiredResult | CallToolResult> {
  const input = end.pending.current;
  if (input === undefined) throw new Error('askClient without a question');
  const question =
    input.kind === 'question'
      ? {
          message: input.question.message,
          kind: input.question.kind,
          request: inputRequired.elicit(input.question.params),
        }
      : {
          message: "A completion from the client's model",
          kind: 'sampling' as const,
          request: inputRequired.createMessage(input.params),
        };
  const requestState = await runtime.codec.mint({
    executionId: end.executionId,
    startedAt: end.startedAt.getTime(),
    principal: principalKey(site.principal),
    tool: tool.path,
    argsDigest: digestArguments(args),
    questionId: crypto.randomUUID(),
    answerBy: Date.now() + runtime.options.approvalTimeoutMs,
    message: question.message,
    kind: question.kind,
    answers: [...end.answers],
    samples: [...end.samples],
  });
  return end.settle(
    input.kind === 'question' ? { approval: 'pending' } : {},
    inputRequired({ inputRequests: { [ELICIT_KEY]: question.request }, requestState }),
  );
}

/**
 * Closes the call's SSE stream once it has run `releaseStreamAfterMs` (SEP-1699 polling): the
 * client reconnects with `Last-Event-ID` and gets what it missed, then the result, from the
 * session's event store. Only 2025-11-25 sessions can resume, so only they get the callback.
 */
function releaseStreamLater(
  runtime: McpRuntime,
  ctx: ServerContext,
): ReturnType<typeof setTimeout> | undefined {
  const after = runtime.options.releaseStreamAfterMs;
  const close = ctx.http?.closeSSE;
  if (after === undefined || close === undefined) return undefined;
  const timer = setTimeout(close, after);
  timer.unref?.();
  return timer;
}

/** Milliseconds as seconds with one decimal, for messages. */
function formatSeconds(ms: number): number {
  return Math.round(ms / 100) / 10;
}

function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  // A handler that ignores its signal keeps running; its late outcome must not go unhandled.
  work.catch(() => {});
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) {
      onAbort();
      return;
    }
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
