import { createHash, hkdfSync } from 'node:crypto';
import { createRequestStateCodec, type RequestStateCodec } from '@modelcontextprotocol/server';
import { z } from 'zod';

/** An answer the user gave to one question of a tool call (`ctx.elicit`). */
export const answerSchema = z.object({
  /** Approved (or, for a form, submitted). */
  ok: z.boolean(),
  /** What the answer was, for the execution record. */
  decision: z.enum(['approved', 'declined', 'cancelled', 'expired']),
  /** Who answered. */
  by: z.string(),
  data: z.record(z.string(), z.unknown()).optional(),
  /**
   * Why an accepted approval still was no: `approve` was left unticked. Said to the client, so
   * the user learns what happened and how to go ahead (issue 18).
   */
  reason: z.literal('approve_unticked').optional(),
  /**
   * The digest of the question it answers ({@link digestInput}): a later round's handler gets this
   * answer only for the same question (see `GivenAnswers`). Absent from answers given before the
   * field, which are taken in order as before.
   */
  question: z.string().optional(),
});

/** An answer the user gave to one question of a tool call (`ctx.elicit`). */
export type Answer = z.infer<typeof answerSchema>;

/**
 * The answer a client gave to one sampling request of a tool call (`call.sample`): the model's
 * result as the client sent it (read again with `validateSampleResult` when used), or none.
 */
export const sampleAnswerSchema = z.object({
  ok: z.boolean(),
  result: z.unknown().optional(),
  /** The digest of the sampling request it answers, as {@link answerSchema}'s `question`. */
  question: z.string().optional(),
});

/** See {@link sampleAnswerSchema}. */
export type SampleAnswer = z.infer<typeof sampleAnswerSchema>;

/**
 * What a tool call carries from one round to the next when it asked a 2026-07-28 client a
 * question (`input_required`): signed by the server, echoed by the client, checked on the retry.
 */
export const roundStateSchema = z.object({
  /** The execution id, kept across rounds. */
  executionId: z.string(),
  /** When the first round started (ms since the epoch). */
  startedAt: z.number(),
  /** The principal the state was issued to (`principalKey`). */
  principal: z.string(),
  /** The tool path. */
  tool: z.string(),
  /** SHA-256 of the canonical JSON of the arguments. */
  argsDigest: z.string(),
  /** The id of the question asked in this round; a retry with it is accepted once. */
  questionId: z.string(),
  /**
   * Until when (ms since the epoch) the question may be answered. A retry after it stops the
   * call as timed out; the state itself verifies a while longer so that a late client hears why.
   */
  answerBy: z.number(),
  /** The question, for the approval record. */
  message: z.string(),
  /** What kind of answer the question asks for: a yes or no, a form, a model's answer. */
  kind: z.enum(['approval', 'form', 'url', 'sampling']),
  /** The digest of what this round asks ({@link digestInput}), given to its answer. */
  inputDigest: z.string().optional(),
  /** Answers to the questions of earlier rounds, in order. */
  answers: z.array(answerSchema),
  /** Answers to the sampling requests of earlier rounds, in order. */
  samples: z.array(sampleAnswerSchema),
});

/** See {@link roundStateSchema}. */
export type RoundState = z.infer<typeof roundStateSchema>;

/**
 * How long after its answer time a round's state still verifies: a client retrying that late
 * gets a clear "not answered in time" result instead of a protocol error. Used rounds are kept
 * (in `mcp_rounds`) as long, so a replay is refused for as long as the state verifies.
 */
export const LATE_RETRY_GRACE_MS = 24 * 60 * 60 * 1000;

/**
 * The codec that signs and checks `requestState` (HMAC-SHA256, expiring). Its key is derived from
 * AUTH_SECRET, so every instance sharing that secret accepts a state another instance issued.
 * States verify for the answer time plus {@link LATE_RETRY_GRACE_MS}; `answerBy` inside says
 * when the answer was due.
 *
 * @example
 * const codec = createRoundStateCodec(authSecret, 300_000);
 * const state = await codec.mint(round);
 */
export function createRoundStateCodec(
  authSecret: string,
  answerWithinMs: number,
): RequestStateCodec<RoundState> {
  const key = new Uint8Array(hkdfSync('sha256', authSecret, 'gateway', 'mcp request state v1', 32));
  return createRequestStateCodec<RoundState>({
    key,
    ttlSeconds: Math.ceil((answerWithinMs + LATE_RETRY_GRACE_MS) / 1000),
  });
}

/**
 * What binds an answer to the question it answers, across rounds: the SHA-256 of what the user
 * (or the client's model) was shown and asked for, without ids made afresh for each asking (a URL
 * elicitation's `elicitationId`). A handler that runs again must ask the same to reuse an answer.
 */
export function digestInput(input: unknown): string {
  if (input !== null && typeof input === 'object' && 'elicitationId' in input) {
    const { elicitationId: _fresh, ...asked } = input;
    return digestArguments(asked);
  }
  return digestArguments(input);
}

/** SHA-256 (hex) of the canonical JSON of `value`: object keys sorted, so key order never matters. */
export function digestArguments(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value), 'utf8').digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}
