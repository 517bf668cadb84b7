import {
  type InputRequest,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  ProtocolError,
  ProtocolErrorCode,
} from '@modelcontextprotocol/server';
import type { MountedTool } from '../../registry/index.js';
import type { CallContext, CallSite } from '../call-site.js';
import { principalKey, subjectId } from '../principal.js';
import {
  type Answer,
  digestArguments,
  digestInput,
  LATE_RETRY_GRACE_MS,
  type RoundState,
  roundStateSchema,
  type SampleAnswer,
} from '../request-state.js';
import type { McpRuntime } from '../runtime.js';
import { ELICIT_KEY, type PendingSlot, type Question, toAnswer } from './elicitation.js';
import { useRound } from './round-store.js';

const INVALID_STATE = 'Invalid or expired requestState';

/** A retried call's round: its verified state and every answer so far, or too late for any. */
export type Round =
  | { late: false; state: RoundState; answers: Answer[]; samples: SampleAnswer[] }
  | { late: true; state: RoundState };

/**
 * The resume stage: a retried call's verified state, with the answer the retry brings, or
 * undefined for a first call. Every retry uses its round up, on every instance: a replay of the
 * same state, with or without an answer, is refused. A retry without an answer counts as the user
 * cancelling (the client's model not answering, for sampling); one after the answer time is
 * `late`.
 *
 * `raw` is the request's state, when its caller has read it already.
 *
 * @throws ProtocolError `InvalidParams` for state that is forged, expired past its grace, issued
 *   to another caller, tool or arguments, or used before.
 */
export async function continueRound(
  runtime: McpRuntime,
  site: CallSite,
  tool: MountedTool,
  args: Record<string, unknown>,
  ctx: CallContext,
  raw: unknown = ctx.mcpReq.requestState(),
): Promise<Round | undefined> {
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
    const sample: SampleAnswer = {
      ...(response.kind === 'sampling' ? { ok: true, result: response.result } : { ok: false }),
      ...(state.inputDigest === undefined ? {} : { question: state.inputDigest }),
    };
    return { late: false, state, answers: state.answers, samples: [...state.samples, sample] };
  }
  const by = subjectId(site.principal);
  const answer: Answer = {
    ...(response.kind === 'missing'
      ? { ok: false, decision: 'cancelled' as const, by }
      : toAnswer(state.kind, response, by)),
    ...(state.inputDigest === undefined ? {} : { question: state.inputDigest }),
  };
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
export interface RoundEnd {
  executionId: string;
  startedAt: Date;
  pending: PendingSlot;
  answers: readonly Answer[];
  samples: readonly SampleAnswer[];
}

/**
 * Ends a round with what the handler asked: `input_required` with the question (an elicitation)
 * or the sampling request, and signed state for the retry.
 */
export async function askClient(
  runtime: McpRuntime,
  site: CallSite,
  tool: MountedTool,
  args: Record<string, unknown>,
  end: RoundEnd,
): Promise<InputRequiredResult> {
  const input = end.pending.current;
  if (input === undefined) throw new Error('askClient without a question');
  const question =
    input.kind === 'question'
      ? {
          message: input.question.message,
          kind: input.question.kind,
          request: elicitRequest(input.question.params),
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
    inputDigest: digestInput(input.kind === 'question' ? input.question.params : input.params),
    answers: [...end.answers],
    samples: [...end.samples],
  });
  return inputRequired({ inputRequests: { [ELICIT_KEY]: question.request }, requestState });
}

/** The `elicitation/create` a round asks: a form (through the SDK's builder) or a link as sent. */
function elicitRequest(params: Question['params']): InputRequest {
  return params.mode === 'url'
    ? { method: 'elicitation/create', params }
    : inputRequired.elicit({ ...params, mode: 'form' });
}
