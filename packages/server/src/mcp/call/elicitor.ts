import { randomUUID } from 'node:crypto';
import type { ElicitRequest, ElicitResult } from '@gateway/sdk';
import { formatIssues, validateElicitRequest, validateFormAnswer } from '@gateway/sdk/kernel';
import type { ClientCapabilities } from '@modelcontextprotocol/server';
import { redactArguments } from '../../executions/index.js';
import type { CallContext, CallSite } from '../call-site.js';
import { subjectId } from '../principal.js';
import { type Answer, digestInput } from '../request-state.js';
import type { McpRuntime } from '../runtime.js';
import {
  countQuestion,
  InputNeeded,
  type PendingSlot,
  type Question,
  type QuestionKind,
  toAnswer,
  toQuestion,
  type UrlElicitation,
  urlQuestion,
} from './elicitation.js';
import { describeForm, formDefaults } from './form-summary.js';
import { GivenAnswers } from './given-answers.js';
import type { ProgressReporter } from './progress.js';
import type { TimeLimit } from './time-limit.js';

/** How often a client waiting on an approval decided elsewhere hears that the call is alive. */
const PROGRESS_EVERY_MS = 10_000;

/** What an {@link Elicitor} works for. */
export interface ElicitorOptions {
  runtime: McpRuntime;
  site: CallSite;
  ctx: CallContext;
  /** The call's execution id, read when a question needs it (it is made when first read). */
  executionId: () => string;
  toolPath: string;
  /** Answers carried over from earlier rounds of this call (2026-07-28 retries). */
  answers: readonly Answer[];
  /** Stops the handler's clock while the user is being asked. */
  limit: TimeLimit;
  /**
   * The call's signal, aborted when the call ends or the client leaves; asked for only when a
   * question is put (the call makes it on first use, see `RunningCall.signal`).
   */
  signal: () => AbortSignal;
  /** The call's progress notifications, for heartbeats while a decision is awaited. */
  progress: ProgressReporter;
  /** What this round of a 2026-07-28 call waits for (shared with `call.sample`). */
  pending: PendingSlot;
  /**
   * Told when the call starts waiting for the user (`true`) and when the answer came (`false`),
   * so the execution record shows the call alive and waiting.
   */
  onWaiting?: (waiting: boolean) => void;
}

/**
 * `ctx.elicit` of one tool call: the n-th question of a call is answered by the n-th answer the
 * call already has (a retried 2026-07-28 call has them all up to the new one); a new question
 * goes to the user by the best way the client offers (DESIGN.md "MCP"):
 * 1. a 2026-07-28 client that declared elicitation: stop the handler ({@link InputNeeded}); the
 *    call answers `input_required` and the client retries with the answer;
 * 2. a 2025 client on a session that declared elicitation: `elicitation/create` on the session;
 * 3. any other client: a pending approval decided in the web app or the CLI, while the call waits.
 *
 * A form's answer reaches the handler only when it fits the form (`validateFormAnswer()`); one that
 * does not counts as cancelled.
 */
export class Elicitor {
  readonly #options: ElicitorOptions;
  readonly #answers: GivenAnswers<Answer>;

  constructor(options: ElicitorOptions) {
    this.#options = options;
    this.#answers = new GivenAnswers(options.answers);
  }

  /** The latest answer, for the execution record. */
  get lastAnswer(): Answer | undefined {
    return this.#answers.last;
  }

  /** Every answer so far, to carry into the next round. */
  get answers(): readonly Answer[] {
    return this.#answers.all;
  }

  /**
   * `ctx.elicit` of the handler.
   *
   * @throws TypeError when the request is malformed (a bug in the tool).
   */
  readonly elicit = async (request: ElicitRequest): Promise<ElicitResult> => {
    const checked = validateElicitRequest(request);
    if (!checked.success) {
      throw new TypeError(
        `Invalid ctx.elicit() request from ${this.#options.toolPath}:\n${formatIssues(checked.issues)}`,
      );
    }
    const shownArgs = redactArguments(request.args ?? {});
    if (request.type === 'url' && request.url !== undefined) {
      // A fresh id each run: the answer is matched by message and link (`digestInput`).
      const link = { message: request.message, url: request.url, elicitationId: randomUUID() };
      return this.#result(await this.#ask(urlQuestion(link), shownArgs));
    }
    // The gateway names the tool that asks: a request's own toolPath is not needed, nor shown.
    const asking = { ...request, toolPath: this.#options.toolPath };
    return this.#result(await this.#ask(toQuestion(asking, shownArgs), shownArgs));
  };

  /** A 2025 session client that declared links (see `SourceCall.takesLinks`). */
  get takesLinks(): boolean {
    const { site } = this.#options;
    return site.kind === 'session' && supports('url', site.clientCapabilities());
  }

  /**
   * Asks the user to open a link an upstream sent (URL-mode elicitation), by the same ways as
   * `elicit`, with a client that declared URL elicitation in place of one that takes forms; the
   * approvals list shows the link to everyone else. Says how the user answered.
   */
  async elicitUrl(asked: UrlElicitation): Promise<'accept' | 'decline' | 'cancel'> {
    const answer = await this.#ask(urlQuestion(asked), {});
    return answer.ok ? 'accept' : answer.decision === 'declined' ? 'decline' : 'cancel';
  }

  /**
   * A question of the call: answered in an earlier round ({@link GivenAnswers}), else asked by the
   * best way the client offers for its kind.
   */
  async #ask(question: Question, shownArgs: unknown): Promise<Answer> {
    const digest = digestInput(question.params);
    const known = this.#answers.take(digest);
    if (known !== undefined) return this.#settle(known.at, known.answer, question);
    const { site, limit, pending, onWaiting } = this.#options;
    // A handler that swallowed the stop signal and asks again still waits for the first answer.
    if (pending.current !== undefined) throw new InputNeeded(pending.current);

    const clientAnswers = supports(question.kind, site.clientCapabilities());
    if (site.kind === 'modern' && clientAnswers) {
      pending.current = { kind: 'question', question };
      throw new InputNeeded(pending.current);
    }
    countQuestion(pending, this.#options.toolPath);
    limit.pause();
    onWaiting?.(true);
    try {
      const answer: Answer = {
        ...(site.kind === 'session' && clientAnswers
          ? await this.#askOnSession(question)
          : await this.#askThroughApprovals(question, shownArgs)),
        question: digest,
      };
      return this.#settle(this.#answers.add(answer), answer, question);
    } finally {
      limit.resume();
      onWaiting?.(false);
    }
  }

  /**
   * The answer as the handler gets it: a form's data checked against the form (only its fields
   * kept); data that does not fit turns the answer into a cancellation, here and in the record.
   */
  #settle(index: number, answer: Answer, question: Question): Answer {
    if (!answer.ok || question.form === undefined) return answer;
    const checked = validateFormAnswer(question.form, answer.data ?? {});
    const settled: Answer = checked.success
      ? { ...answer, data: checked.data }
      : {
          ok: false,
          decision: 'cancelled',
          by: answer.by,
          ...(answer.question === undefined ? {} : { question: answer.question }),
        };
    if (!checked.success) {
      this.#options.runtime.services.logger.warn('form answer does not fit the form', {
        executionId: this.#options.executionId(),
        tool: this.#options.toolPath,
        issues: formatIssues(checked.issues),
      });
    }
    this.#answers.replace(index, settled);
    return settled;
  }

  async #askOnSession(question: Question): Promise<Answer> {
    const { ctx, runtime, site } = this.#options;
    const signal = this.#options.signal();
    const by = subjectId(site.principal);
    try {
      const result = await ctx.mcpReq.elicitInput(question.params, {
        timeout: runtime.options.approvalTimeoutMs,
        signal,
        // On the call's own stream, which lives where the call runs (any instance).
        relatedRequestId: ctx.mcpReq.id,
      });
      return toAnswer(
        question.kind,
        {
          kind: 'elicit',
          action: result.action,
          ...(result.content === undefined ? {} : { content: result.content }),
        },
        by,
      );
    } catch (error) {
      runtime.services.logger.warn('elicitation not answered', {
        executionId: this.#options.executionId(),
        tool: this.#options.toolPath,
        userId: by,
        error: error instanceof Error ? error.message : String(error),
      });
      return { ok: false, decision: signal.aborted ? 'cancelled' : 'expired', by };
    }
  }

  async #askThroughApprovals(question: Question, shownArgs: unknown): Promise<Answer> {
    const { runtime, site, toolPath, progress } = this.#options;
    const executionId = this.#options.executionId();
    const signal = this.#options.signal();
    const userId = subjectId(site.principal);
    let heartbeat: ReturnType<typeof setInterval> | undefined;
    try {
      const approval = await runtime.services.approvals.request({
        executionId,
        userId,
        toolPath,
        // People deciding outside their AI client see what a form asks for, and what approving does.
        message:
          question.kind === 'url'
            ? `${question.message}\n\nOpen this address in your browser; approve once you have done what it asks, or deny.`
            : question.form === undefined
              ? question.message
              : `${question.message}\n\n${describeForm(question.form)}`,
        args: shownArgs,
        timeoutMs: runtime.options.approvalTimeoutMs,
        signal,
        onPending: (pending) => {
          runtime.services.logger.info('approval pending', {
            approvalId: pending.id,
            executionId,
            tool: toolPath,
            userId,
          });
          const where = `Waiting for your approval: open ${runtime.services.baseUrl}/ or run \`gateway approvals\``;
          progress.heartbeat(where);
          heartbeat = setInterval(() => progress.heartbeat(where), PROGRESS_EVERY_MS);
          heartbeat.unref?.();
        },
      });
      const by = approval.decidedBy ?? userId;
      if (approval.status === 'approved') {
        return question.form === undefined
          ? { ok: true, decision: 'approved', by }
          : { ok: true, decision: 'approved', by, data: formDefaults(question.form) };
      }
      if (approval.status === 'denied') return { ok: false, decision: 'declined', by };
      return { ok: false, decision: signal.aborted ? 'cancelled' : 'expired', by: userId };
    } finally {
      if (heartbeat !== undefined) clearInterval(heartbeat);
    }
  }

  #result(answer: Answer): ElicitResult {
    return {
      executionId: this.#options.executionId(),
      approved: answer.ok,
      ...(answer.data === undefined ? {} : { data: answer.data }),
    };
  }
}

/**
 * Whether the client takes elicitations of `kind`: a link needs `elicitation.url`, an approval or
 * a form needs form elicitation (a bare `elicitation: {}` means form, per the spec).
 */
function supports(kind: QuestionKind, capabilities: ClientCapabilities | undefined): boolean {
  const elicitation = capabilities?.elicitation;
  if (elicitation === undefined) return false;
  if (kind === 'url') return elicitation.url !== undefined;
  return elicitation.form !== undefined || elicitation.url === undefined;
}
