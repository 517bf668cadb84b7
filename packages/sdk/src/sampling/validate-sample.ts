import { z } from 'zod';
import type { SampleRequest, SampleResult } from '../context/types.js';
import type { ValidationResult } from '../tool/schema-issue.js';

const contentSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('image'), data: z.string().min(1), mimeType: z.string().min(1) }),
  z.object({ type: z.literal('audio'), data: z.string().min(1), mimeType: z.string().min(1) }),
]);

const priority = z.number().min(0).max(1).optional();

const requestSchema = z.strictObject({
  messages: z
    .array(z.object({ role: z.enum(['user', 'assistant']), content: contentSchema }))
    .min(1, 'needs at least one message'),
  maxTokens: z.number().int().positive(),
  systemPrompt: z.string().optional(),
  temperature: z.number().optional(),
  stopSequences: z.array(z.string()).optional(),
  modelPreferences: z
    .object({
      hints: z.array(z.object({ name: z.string().optional() })).optional(),
      costPriority: priority,
      speedPriority: priority,
      intelligencePriority: priority,
    })
    .optional(),
});

const resultSchema = z.object({
  role: z.enum(['user', 'assistant']),
  // A one-block list is the same answer, as 2025-11-25 clients may send it.
  content: z.union([contentSchema, z.tuple([contentSchema]).transform(([block]) => block)]),
  model: z.string(),
  stopReason: z.string().optional(),
});

/**
 * Checks a `call.sample()` request as the gateway does before sending it: at least one message,
 * each of text, image or audio content, a positive integer `maxTokens`, priorities between 0
 * and 1, no unknown keys.
 *
 * @example
 * const checked = validateSampleRequest(request);
 * if (!checked.success) throw new TypeError(formatIssues(checked.issues));
 */
export function validateSampleRequest(request: unknown): ValidationResult<SampleRequest> {
  const parsed = requestSchema.safeParse(request);
  return parsed.success
    ? { success: true, data: request as SampleRequest }
    : { success: false, issues: parsed.error.issues };
}

/**
 * Reads a client's answer to a sampling request as the handler gets it: one block of text, image
 * or audio content (a one-block list counts), the model, the stop reason. Anything else (tool
 * calls, several blocks) is not an answer a tool asked for.
 */
export function validateSampleResult(result: unknown): ValidationResult<SampleResult> {
  const parsed = resultSchema.safeParse(result);
  if (!parsed.success) return { success: false, issues: parsed.error.issues };
  const { role, content, model, stopReason } = parsed.data;
  return {
    success: true,
    data: { role, content, model, ...(stopReason === undefined ? {} : { stopReason }) },
  };
}
