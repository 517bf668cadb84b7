import type { z } from 'zod';
import { askDeclaredApproval } from '../approval/declared-approval.js';
import { ToolError } from '../errors/tool-error.js';
import { formatIssues } from '../tool/schema-issue.js';
import type { InputSchema, Tool } from '../tool/types.js';
import { validateToolInput, validateToolOutput } from '../tool/validate-call.js';
import { createTestContext, type TestContext } from './create-test-context.js';

/** What `runTool` resolves to: the parsed output when the tool has an outputSchema. */
export type RunToolResult<TOutputSchema extends z.ZodType | undefined> =
  TOutputSchema extends z.ZodType ? z.output<TOutputSchema> : unknown;

/** Options of `runTool()`. */
export interface RunToolOptions {
  /** Aborts the call, as the gateway does when the caller leaves or the time limit passes. */
  signal?: AbortSignal;
}

/**
 * Runs a tool as the gateway will: validates `input` against `inputSchema`, runs the handler, and
 * validates the result against `outputSchema`.
 *
 * @throws ToolError when the input is invalid (listing each issue), whatever the handler throws,
 *   and an Error when the handler's result does not match `outputSchema` (a bug in the tool).
 * @example
 * const result = await runTool(getForecast, { city: 'Oslo' }, createTestContext({ tokens: { weather: 'k' } }));
 */
export async function runTool<
  TInputSchema extends InputSchema,
  TOutputSchema extends z.ZodType | undefined,
>(
  tool: Tool<TInputSchema, TOutputSchema>,
  input: z.input<TInputSchema>,
  ctx: TestContext = createTestContext(),
  options: RunToolOptions = {},
): Promise<RunToolResult<TOutputSchema>> {
  const anyTool = tool as unknown as Tool;
  const parsed = await validateToolInput(anyTool, input);
  if (!parsed.success) {
    throw new ToolError(`Invalid input for ${tool.path}:\n${formatIssues(parsed.issues)}`);
  }
  await askDeclaredApproval(anyTool, ctx, parsed.data as Record<string, unknown>);
  const signal = options.signal ?? new AbortController().signal;
  const output = await anyTool.handler(ctx, parsed.data as z.output<InputSchema>, {
    signal,
    executionId: ctx.executionId,
    reportProgress: (progress, total, message) => {
      ctx.progress.push({
        progress,
        ...(total === undefined ? {} : { total }),
        ...(message === undefined ? {} : { message }),
      });
    },
    sample: (request) => ctx.answerSample(request),
  });
  const checked = await validateToolOutput(anyTool, output);
  if (!checked.success) {
    throw new Error(
      `The result of ${tool.path} does not match its outputSchema:\n${formatIssues(checked.issues)}`,
    );
  }
  return checked.data as RunToolResult<TOutputSchema>;
}
