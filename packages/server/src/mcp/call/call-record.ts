import type { CallToolResult, InputRequiredResult } from '@modelcontextprotocol/server';
import { trace } from '@opentelemetry/api';
import { isDatabaseUnavailable } from '../../db/unavailable.js';
import { type ExecutionRecord, newExecutionId } from '../../executions/index.js';
import type { ExecutionOutcome } from '../../executions/tables.js';
import { traced } from '../../tracing/index.js';
import { CallRedaction } from '../call-redaction.js';
import { type McpPrincipal, subjectId } from '../principal.js';
import { errorResult } from '../render-result.js';
import type { McpDeps } from '../runtime.js';
import type { Elicitor } from './elicitor.js';
import type { Round } from './rounds.js';

/** What a call's record may say at its end, beside who called what and when. */
type Ending = Pick<ExecutionRecord, 'outcome' | 'durationMs' | 'approval' | 'approvedBy' | 'error'>;

/**
 * The execution record of one call: states queued while it runs, and its final state committed
 * before the answer is let out ({@link CallRecord.settle}: no answer without its record).
 */
export class CallRecord {
  /** Every value vended to this call is masked in everything the call lets out. */
  readonly redaction: CallRedaction;
  /** Set once the call can ask questions: the last answer goes into the record. */
  elicitor: Elicitor | undefined;
  readonly #services: McpDeps;
  readonly #principal: McpPrincipal;
  /** When the call started (`Date.now()`), its `Date` made when first read ({@link startedAt}). */
  readonly #startedMs: number;
  #startedAt: Date | undefined;
  /** The endpoint (and its OAuth client) the call came through, for the record; made when read. */
  #via: Pick<ExecutionRecord, 'endpointId' | 'clientId'> | undefined;
  readonly #toolPath: string;
  readonly #args: Record<string, unknown>;
  /** The execution id, once made ({@link id}). */
  #id: string | undefined;
  /** Whether a state of the call was queued or committed: a later one is never overwritten. */
  #written = false;

  constructor(
    services: McpDeps,
    principal: McpPrincipal,
    toolPath: string,
    args: Record<string, unknown>,
    round?: Round,
  ) {
    this.#services = services;
    this.#principal = principal;
    this.#toolPath = toolPath;
    this.#args = args;
    this.#id = round?.state.executionId;
    this.#startedMs = round ? round.state.startedAt : Date.now();
    this.redaction = new CallRedaction(services.redactor);
  }

  /**
   * When the call started: made when first read, by the record's first state, which a federated
   * call queues after its upstream request is written (issue 37).
   */
  get startedAt(): Date {
    this.#startedAt ??= new Date(this.#startedMs);
    return this.#startedAt;
  }

  /**
   * The execution id, made when first read: a federated call's request is sent upstream before it
   * is needed (the call's first state is queued after that, {@link writeStarted}; issue 37).
   */
  get id(): string {
    this.#id ??= newExecutionId();
    return this.#id;
  }

  elapsed(): number {
    return Date.now() - this.#startedMs;
  }

  /** The approval decision so far, for the record. */
  decision(): Pick<ExecutionRecord, 'approval' | 'approvedBy'> {
    const answer = this.elicitor?.lastAnswer;
    return answer === undefined ? {} : { approval: answer.decision, approvedBy: answer.by };
  }

  /** Queues a state of the call that needs no commit before anything is sent. */
  write(end: Ending): void {
    this.#written = true;
    this.#services.executions.write(this.#state(end));
  }

  /**
   * Queues the call's first state, that it is running (`end`), unless a state was queued or
   * committed already: called once its source has started, so an upstream's request goes out
   * first, and a source that asked a question at once has queued a later state, which stands.
   */
  writeStarted(end: Ending): void {
    if (!this.#written) this.write(end);
  }

  /** Settles a call that ran (or was refused) with `outcome`, its decision and its error. */
  finish(outcome: ExecutionOutcome, result: CallToolResult, error?: string) {
    return this.settle(result, {
      outcome,
      durationMs: this.elapsed(),
      ...this.decision(),
      ...(error === undefined ? {} : { error: this.redaction.text(error) }),
    });
  }

  /**
   * Commits the record, then gives back `result`; when the record cannot be stored, an error
   * result saying so instead. The only place a call's final record is written.
   */
  async settle<R extends CallToolResult | InputRequiredResult | undefined>(
    result: R,
    end: Ending,
  ): Promise<R | CallToolResult> {
    // No later "running" state comes over this one, stored or not (`writeStarted`).
    this.#written = true;
    try {
      if (end.outcome !== undefined) {
        trace.getActiveSpan()?.setAttribute('gateway.outcome', end.outcome);
      }
      const state = this.#state(
        end.durationMs === undefined ? { durationMs: this.elapsed(), ...end } : end,
      );
      await traced('gateway.record', {}, () => this.#services.executions.commit(state));
      return result;
    } catch (error) {
      return errorResult(
        isDatabaseUnavailable(error)
          ? `The gateway's database is unavailable, so this call of ${this.#toolPath} could not be recorded and its result is withheld; retry shortly. Execution id: ${this.id}.`
          : `The gateway could not record this call of ${this.#toolPath}, so its result is withheld. Execution id: ${this.id}; the gateway's log has the details.`,
      );
    }
  }

  #state(end: Ending): ExecutionRecord {
    const principal = this.#principal;
    this.#via ??=
      principal.kind === 'user'
        ? {
            ...(principal.endpointId === undefined ? {} : { endpointId: principal.endpointId }),
            ...(principal.clientId === undefined ? {} : { clientId: principal.clientId }),
          }
        : {};
    return {
      id: this.id,
      userId: subjectId(principal),
      toolPath: this.#toolPath,
      startedAt: this.startedAt,
      arguments: this.redaction.data(this.#args),
      ...this.#via,
      ...end,
    };
  }
}
