import type { ElicitRequest, ElicitResult } from '@gateway/sdk';
import type { ClientCapabilities, ServerContext } from '@modelcontextprotocol/server';
import { redactArguments } from '../executions/index.js';
import type { CallSite } from './call-site.js';
import { InputNeeded, type Question, toAnswer, toQuestion } from './elicitation.js';
import { subjectId } from './principal.js';
import type { ProgressReporter } from './progress.js';
import type { Answer } from './request-state.js';
import type { McpRuntime } from './runtime.js';
import type { TimeLimit } from './time-limit.js';

/** How often a client waiting on an approval decided elsewhere hears that the call is alive. */
const PROGRESS_EVERY_MS = 10_000;

/** What an {@link Elicitor} works for. */
export interface ElicitorOptions {
  runtime: McpRuntime;
  site: CallSite;
  ctx: ServerContext;
  executionId: string;
  toolPath: string;
  /** Answers carried over from earlier rounds of this call (2026-07-28 retries). */
  answers: readonly Answer[];
  /** Stops the handler's clock while the user is being asked. */
  limit: TimeLimit;
  /** Aborted when the call ends or the client leaves. */
  signal: AbortSignal;
  /** The call's progress notifications, for heartbeats while a decision is awaited. */
  progress: ProgressReporter;
}

/**
 * `ctx.elicit` of one tool call: the n-th question of a call is answered by the n-th answer the
 * call already has (a retried 2026-07-28 call has them all up to the new one); a new question
 * goes to the user by the best way the client offers (DESIGN.md "MCP"):
 * 1. a 2026-07-28 client that declared elicitation: stop the handler ({@link InputNeeded}); the
 *    call answers `input_required` and the client retries with the answer;
 * 2. a 2025 client on a session that declared elicitation: `elicitation/create` on the session;
 * 3. any other client: a pending approval decided in the web app or the CLI, while the call waits.
 */
export class Elicitor {
  readonly #options: ElicitorOptions;
  readonly #answers: Answer[];
  #asked = 0;
  /** The question a 2026-07-28 client must answer before the call can go on. */
  pendingQuestion: Question | undefined;

  constructor(options: ElicitorOptions) {
    this.#options = options;
    this.#answers = [...options.answers];
  }

  /** The latest answer, for the execution record. */
  get lastAnswer(): Answer | undefined {
    return this.#answers.at(-1);
  }

  /** Every answer so far, to carry into the next round. */
  get answers(): readonly Answer[] {
    return this.#answers;
  }

  readonly elicit = async (request: ElicitRequest): Promise<ElicitResult> => {
    const index = this.#asked;
    this.#asked += 1;
    const known = this.#answers[index];
    if (known !== undefined) return this.#result(known);
    // A handler that swallowed the stop signal and asks again still waits for the first answer.
    if (this.pendingQuestion !== undefined) throw new InputNeeded(this.pendingQuestion);

    const { site, limit } = this.#options;
    const question = toQuestion(request, redactArguments(request.args ?? {}));
    const formSupported = supportsForm(site.server.getClientCapabilities());
    if (site.kind === 'modern' && formSupported) {
      this.pendingQuestion = question;
      throw new InputNeeded(question);
    }
    limit.pause();
    try {
      const answer =
        site.kind === 'session' && formSupported
          ? await this.#askOnSession(question)
          : await this.#askThroughApprovals(question, request);
      this.#answers.push(answer);
      return this.#result(answer);
    } finally {
      limit.resume();
    }
  };

  async #askOnSession(question: Question): Promise<Answer> {
    const { ctx, runtime, site, signal } = this.#options;
    const by = subjectId(site.principal);
    try {
      const result = await ctx.mcpReq.elicitInput(question.params, {
        timeout: runtime.options.approvalTimeoutMs,
        signal,
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
        executionId: this.#options.executionId,
        tool: this.#options.toolPath,
        userId: by,
        error: error instanceof Error ? error.message : String(error),
      });
      return { ok: false, decision: signal.aborted ? 'cancelled' : 'expired', by };
    }
  }

  async #askThroughApprovals(question: Question, request: ElicitRequest): Promise<Answer> {
    const { runtime, site, signal, executionId, toolPath, progress } = this.#options;
    const userId = subjectId(site.principal);
    let heartbeat: ReturnType<typeof setInterval> | undefined;
    try {
      const approval = await runtime.services.approvals.request({
        executionId,
        userId,
        toolPath,
        message: question.message,
        args: redactArguments(request.args ?? {}),
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
      if (approval.status === 'approved') return { ok: true, decision: 'approved', by };
      if (approval.status === 'denied') return { ok: false, decision: 'declined', by };
      return { ok: false, decision: signal.aborted ? 'cancelled' : 'expired', by: userId };
    } finally {
      if (heartbeat !== undefined) clearInterval(heartbeat);
    }
  }

  #result(answer: Answer): ElicitResult {
    return {
      executionId: this.#options.executionId,
      approved: answer.ok,
      ...(answer.data === undefined ? {} : { data: answer.data }),
    };
  }
}

/** Whether the client takes form elicitations (a bare `elicitation: {}` means form, per the spec). */
function supportsForm(capabilities: ClientCapabilities | undefined): boolean {
  const elicitation = capabilities?.elicitation;
  if (elicitation === undefined) return false;
  return elicitation.form !== undefined || elicitation.url === undefined;
}
