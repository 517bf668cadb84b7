import { type SampleRequest, type SampleResult, ToolError } from '@gateway/sdk';
import { formatIssues, validateSampleRequest, validateSampleResult } from '@gateway/sdk/kernel';
import type { CreateMessageRequestParams } from '@modelcontextprotocol/server';
import type { CallContext, CallSite } from '../call-site.js';
import { subjectId } from '../principal.js';
import { digestInput, type SampleAnswer } from '../request-state.js';
import type { McpRuntime } from '../runtime.js';
import { countQuestion, InputNeeded, type PendingSlot } from './elicitation.js';
import { GivenAnswers } from './given-answers.js';
import type { TimeLimit } from './time-limit.js';

/** What a {@link Sampler} works for. */
export interface SamplerOptions {
  runtime: McpRuntime;
  site: CallSite;
  ctx: CallContext;
  executionId: string;
  toolPath: string;
  /** Answers carried over from earlier rounds of this call (2026-07-28 retries). */
  samples: readonly SampleAnswer[];
  /** Stops the handler's clock while the client's model answers. */
  limit: TimeLimit;
  /** Aborted when the call ends or the client leaves. */
  signal: AbortSignal;
  /** What this round of a 2026-07-28 call waits for (shared with `ctx.elicit`). */
  pending: PendingSlot;
}

/**
 * `call.sample` of one tool call: asks the AI client's model (MCP `sampling/createMessage`).
 * The n-th request of a call is answered by the n-th answer the call already has; a new one goes
 * to the client by the way it offers:
 * 1. a 2026-07-28 client that declared sampling: stop the handler ({@link InputNeeded}); the call
 *    answers `input_required` with an embedded `sampling/createMessage`, the client retries with
 *    the model's answer;
 * 2. a 2025 client on a session that declared sampling: `sampling/createMessage` on the session;
 * 3. any other client: nobody can stand in for a model, so the handler gets a `ToolError` that
 *    says so.
 *
 * The model's answer is untrusted input to the handler (docs/decisions.md, "Sampling").
 */
export class Sampler {
  readonly #options: SamplerOptions;
  readonly #samples: GivenAnswers<SampleAnswer>;

  constructor(options: SamplerOptions) {
    this.#options = options;
    this.#samples = new GivenAnswers(options.samples);
  }

  /** Every answer so far, to carry into the next round. */
  get samples(): readonly SampleAnswer[] {
    return this.#samples.all;
  }

  /**
   * `call.sample` of the handler.
   *
   * @throws TypeError when the request is malformed (a bug in the tool); ToolError when the client
   *   cannot sample, refuses, fails or answers with something that is not one block of content.
   */
  readonly sample = async (request: SampleRequest): Promise<SampleResult> => {
    const { site, toolPath, pending } = this.#options;
    const checked = validateSampleRequest(request);
    if (!checked.success) {
      throw new TypeError(
        `Invalid call.sample() request from ${toolPath}:\n${formatIssues(checked.issues)}`,
      );
    }
    const params = toCreateMessageParams(request);
    const digest = digestInput(params);
    const known = this.#samples.take(digest);
    if (known !== undefined) return this.#read(known.answer);
    if (pending.current !== undefined) throw new InputNeeded(pending.current);

    const offered = site.clientCapabilities()?.sampling !== undefined;
    if (!offered || site.kind === 'stateless') {
      throw new ToolError(
        `${toolPath} asks the AI client's model for an answer (MCP sampling), and this client does not offer sampling. Use an AI client that supports sampling.`,
      );
    }
    if (site.kind === 'modern') {
      pending.current = { kind: 'sample', params };
      throw new InputNeeded(pending.current);
    }
    countQuestion(pending, toolPath);
    const answer = await this.#askOnSession(params);
    this.#samples.add({ ...answer, question: digest });
    return this.#read(answer);
  };

  async #askOnSession(params: CreateMessageRequestParams): Promise<SampleAnswer> {
    const { ctx, runtime, limit, signal, site, executionId, toolPath } = this.#options;
    limit.pause();
    try {
      const result = await ctx.mcpReq.requestSampling(params, {
        timeout: runtime.options.approvalTimeoutMs,
        signal,
        // On the call's own stream, which lives where the call runs (any instance).
        relatedRequestId: ctx.mcpReq.id,
      });
      return { ok: true, result };
    } catch (error) {
      // The call itself was stopped (time limit, client gone): that outcome wins.
      if (signal.aborted) throw signal.reason;
      runtime.services.logger.warn('sampling request not answered', {
        executionId,
        tool: toolPath,
        userId: subjectId(site.principal),
        error: error instanceof Error ? error.message : String(error),
      });
      return { ok: false };
    } finally {
      limit.resume();
    }
  }

  #read(answer: SampleAnswer): SampleResult {
    const { toolPath } = this.#options;
    if (!answer.ok) {
      throw new ToolError(
        `The AI client did not answer the sampling request of ${toolPath} (it refused, failed or ran out of time).`,
      );
    }
    const read = validateSampleResult(answer.result);
    if (!read.success) {
      throw new ToolError(
        `The AI client answered the sampling request of ${toolPath} with something other than one block of text, image or audio.`,
      );
    }
    return read.data;
  }
}

/** The MCP request for `request` (already checked): only the fields the spec defines. */
function toCreateMessageParams(request: SampleRequest): CreateMessageRequestParams {
  return {
    messages: request.messages.map((message) => ({
      role: message.role,
      content: { ...message.content },
    })),
    maxTokens: request.maxTokens,
    ...(request.systemPrompt === undefined ? {} : { systemPrompt: request.systemPrompt }),
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.stopSequences === undefined ? {} : { stopSequences: [...request.stopSequences] }),
    ...(request.modelPreferences === undefined
      ? {}
      : { modelPreferences: { ...request.modelPreferences } }),
  };
}
