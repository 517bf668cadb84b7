import {
  ApprovalDeniedError,
  AuthRequiredError,
  ToolError,
  UndeclaredProviderError,
} from '@gateway/sdk';
import { formatIssues, type Role } from '@gateway/sdk/kernel';
import {
  type CallToolRequestParams,
  type CallToolResult,
  type InputRequiredResult,
  ProtocolError,
  ProtocolErrorCode,
  UrlElicitationRequiredError,
} from '@modelcontextprotocol/server';
import type { Span } from '@opentelemetry/api';
import { Refusal } from '../../errors/refusal.js';
import type { MountedTool } from '../../registry/index.js';
import { CallFailure, LinksRequired, Stopped } from '../../tool-sources/index.js';
import { traced, tracedNow } from '../../tracing/index.js';
import type { CallContext, CallSite } from '../call-site.js';
import { answerMetaTool, isMetaTool } from '../discovery/index.js';
import { errorResult } from '../render-result.js';
import { type McpRuntime, toolsNow } from '../runtime.js';
import { authRequiredMessage } from './auth-hint.js';
import { CallRecord } from './call-record.js';
import { continueRound, type Round } from './rounds.js';
import { RunningCall } from './running-call.js';

/**
 * Answers `tools/call` in stages, the same for every kind of {@link ToolSource}:
 *
 * 1. **resolve**: the tool among the caller's (one outside the role, or outside the endpoint's
 *    tools, is as unknown as one that does not exist); on a discovery endpoint
 *    `gateway.search_tools` and `gateway.describe_tools` are answered here, and
 *    `gateway.call_tool` resolves the tool it names, which then runs as if called directly;
 * 2. **resume**: a retried 2026-07-28 round's verified state and answer;
 * 3. **validate**: the source checks the arguments;
 * 4. **authorize credentials**: the call's `auth` serves only the providers its source declares,
 *    and masks what it vends;
 * 5. **run**: the source runs the tool under the time limit;
 * 6. **settle**: the execution record is committed, then the answer is let out
 *    ({@link CallRecord.settle}, the one place a final record is written).
 *
 * Tool failures are `isError` results (a service's {@link Refusal} among them, saying its
 * message as the HTTP answer would); only a tool the caller cannot see, forged request state, or
 * an upstream's links for a client that takes them, is a protocol error.
 *
 * @throws ProtocolError `InvalidParams` for an unknown tool or an invalid `requestState`;
 *   `UrlElicitationRequired` (-32042) with an upstream's links ({@link LinksRequired}).
 */
export function callTool(
  runtime: McpRuntime,
  site: CallSite,
  params: CallToolRequestParams,
  ctx: CallContext,
): Promise<CallToolResult | InputRequiredResult> {
  // A span per call when tracing is on; its stages are child spans (tracing/).
  return traced('tools/call', {}, (span) => callStages(runtime, site, params, ctx, span));
}

async function callStages(
  runtime: McpRuntime,
  site: CallSite,
  params: CallToolRequestParams,
  ctx: CallContext,
  span: Span | undefined,
): Promise<CallToolResult | InputRequiredResult> {
  const { services } = runtime;

  // 1. resolve: at once from this request's rows, most of the time (`toolsNow`)
  const resolving = tracedNow('gateway.policy', {}, () =>
    site.authenticated === undefined
      ? toolsNow(runtime, site.principal, site.kind !== 'session')
      : toolsNow(runtime, site.authenticated, true),
  );
  const { role, index, mode } = resolving instanceof Promise ? await resolving : resolving;
  // A discovery endpoint's meta-tools: search and describe answer here; `gateway.call_tool`
  // names the real tool, which goes on through every stage below as a direct call would.
  if (mode === 'discovery' && isMetaTool(params.name)) {
    const meta = answerMetaTool(index, params);
    if ('result' in meta) return meta.result;
    params = meta.call;
  }
  const args = params.arguments ?? {};
  const tool = index.byName.get(params.name);
  // Only a tool the caller may see names the span: any other name is the caller's choosing.
  span?.setAttribute('gateway.tool', tool === undefined ? '(unknown)' : tool.path);
  if (tool === undefined) {
    // Committed like any answer; the answer is this error whether or not the record is stored.
    await new CallRecord(services, site.principal, params.name.slice(0, 200), args).settle(
      undefined,
      {
        outcome: 'denied',
        durationMs: 0,
        error: 'No such tool for this caller',
      },
    );
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${params.name} not found`);
  }

  // 2. resume
  // Most calls are no retried round: they take no turn for it.
  const state = ctx.mcpReq.requestState();
  const round =
    state === undefined ? undefined : await continueRound(runtime, site, tool, args, ctx, state);
  const record = new CallRecord(services, site.principal, tool.path, args, round);
  if (round?.late === true) {
    const seconds = formatSeconds(runtime.options.approvalTimeoutMs);
    return record.settle(
      errorResult(
        `${tool.path} asked a question that was not answered within ${seconds} s, so the call was stopped and nothing more was done. Call the tool again to start over.`,
      ),
      {
        outcome: 'timeout',
        ...(round.state.kind === 'sampling' ? {} : { approval: 'expired' }),
        error: 'Question not answered in time',
      },
    );
  }

  // 3. validate
  const checking = tool.source.checkInput(args);
  const input = checking instanceof Promise ? await checking : checking;
  if (!input.success) {
    return record.finish(
      'error',
      errorResult(`Invalid input for ${params.name}:\n${formatIssues(input.error.issues)}`),
      'Invalid arguments',
    );
  }
  // 4 and 5. authorize credentials, run
  return run(runtime, site, ctx, tool, role, record, round, input.data, args);
}

async function run(
  runtime: McpRuntime,
  site: CallSite,
  ctx: CallContext,
  tool: MountedTool,
  role: Role,
  record: CallRecord,
  round: Round | undefined,
  input: unknown,
  args: Record<string, unknown>,
): Promise<CallToolResult | InputRequiredResult> {
  const call = new RunningCall({ runtime, site, ctx, tool, role, record, round, args });
  try {
    const running = traced(
      'gateway.tool.run',
      { 'gateway.tool': tool.path, 'gateway.source': tool.source.kind },
      () => call.untilStopped(tool.source.run(input, call)),
    );
    // Queued once the source's request to its upstream is written, if it sends one (else at once):
    // the upstream works while the gateway does this (issue 37). A retried round says how long
    // the call has run: the sweeper of abandoned calls sees it alive.
    const started = round === undefined ? {} : { durationMs: record.elapsed() };
    call.afterSent(() => record.writeStarted(started));
    const result = await running;
    if (call.questionPending) return await call.askClient();
    // Masked for the client too: a prompt-injected model could ask a tool to echo its key.
    const masked = record.redaction.data(result);
    return result.isError === true
      ? record.finish('error', masked, upstreamErrorText(masked))
      : record.finish('ok', masked);
  } catch (error) {
    // The handler asked something (it may have caught the stop signal and thrown another error).
    if (call.questionPending) return await call.askClient();
    return failed(runtime, tool, record, call, error);
  } finally {
    call.end();
  }
}

/** What the client hears when the user accepted an approval with `approve` unticked. */
function untickedMessage(toolPath: string): string {
  return `${toolPath} did not go ahead: the approval was accepted with "Approve" unticked, which counts as no, so nothing was changed. To go ahead, call the tool again and accept with "Approve" ticked; to stop, decline.`;
}

/** The `isError` result and record of a call that threw. */
function failed(
  runtime: McpRuntime,
  tool: MountedTool,
  record: CallRecord,
  call: RunningCall,
  error: unknown,
): Promise<CallToolResult> {
  const { redaction } = record;
  if (error instanceof Stopped && error.reason === 'timeout') {
    const seconds = formatSeconds(runtime.options.toolTimeoutMs);
    return record.finish(
      'timeout',
      errorResult(`${tool.path} did not finish within ${seconds} s and was stopped.`),
      'Time limit reached',
    );
  }
  if (error instanceof Stopped) {
    return record.finish(
      'error',
      errorResult('The call was cancelled by the client.'),
      'Cancelled by the client',
    );
  }
  if (error instanceof LinksRequired) return linksRequired(record, error);
  if (error instanceof CallFailure) {
    return record.finish(
      error.outcome,
      errorResult(redaction.message(error.message)),
      error.recorded,
    );
  }
  if (ApprovalDeniedError.isInstance(error)) {
    const message =
      record.elicitor?.lastAnswer?.reason === 'approve_unticked'
        ? untickedMessage(tool.path)
        : // A request without toolPath: the gateway names the tool itself.
          redaction.message(
            error.toolPath === undefined
              ? new ApprovalDeniedError(tool.path, error).message
              : error.message,
          );
    return record.finish('denied', errorResult(message), message);
  }
  // A service's refusal reads as it would over HTTP: its message, written for the caller.
  if (ToolError.isInstance(error) || Refusal.isInstance(error)) {
    const message = redaction.message(error.message);
    return record.finish('error', errorResult(message), message);
  }
  if (UndeclaredProviderError.isInstance(error)) {
    // A bug in the plugin, not the user's to fix: the log tells the operator too.
    // The message, not error.provider: it leaves out a value that is no provider id.
    call.log.warn('tool asked for a credential its plugin does not declare', {
      reason: redaction.text(error.message),
    });
    const message = redaction.message(error.message);
    return record.finish('error', errorResult(message), message);
  }
  if (AuthRequiredError.isInstance(error)) {
    const message = redaction.message(
      authRequiredMessage(error, runtime.services.baseUrl, tool.source.credentials.authProviders),
    );
    return record.finish('error', errorResult(message), `No credential for ${error.provider}`);
  }
  call.log.error('tool failed', {
    error: redaction.text(error instanceof Error ? (error.stack ?? error.message) : String(error)),
  });
  return record.finish(
    'error',
    errorResult(
      `${tool.path} failed unexpectedly. The details are in the gateway's log under execution id ${record.id}.`,
    ),
    'Unexpected error',
  );
}

/**
 * Records a call whose upstream needs the user to open links first, then answers the client (one
 * that takes links) with the same `-32042` error, the links masked like the rest of the call.
 */
async function linksRequired(record: CallRecord, error: LinksRequired): Promise<CallToolResult> {
  const message = record.redaction.message(error.message);
  const recorded = errorResult(message);
  const settled = await record.finish('error', recorded, error.recorded);
  // Not recorded: the error result that says so, as for every call.
  if (settled !== recorded) return settled;
  throw new UrlElicitationRequiredError(
    error.links.map((link) => ({ mode: 'url' as const, ...record.redaction.data(link) })),
    message,
  );
}

/** The record's error for an `isError` result a source answered: its first text, shortened. */
function upstreamErrorText(result: CallToolResult): string {
  for (const block of result.content ?? []) {
    if (block.type === 'text') return block.text.slice(0, 500);
  }
  return 'The tool answered an error';
}

/** Milliseconds as seconds with one decimal, for messages. */
export function formatSeconds(ms: number): number {
  return Math.round(ms / 100) / 10;
}
