import type { z } from 'zod';
import { askDeclaredApproval } from '../approval/declared-approval.js';
import { ApprovalDeniedError } from '../errors/approval-denied-error.js';
import { GatewayError } from '../errors/gateway-error.js';
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
  /**
   * Resolve to what an MCP caller gets ({@link CallerResult}) instead: an error becomes an
   * `isError` result with the message the caller reads, as the gateway answers it.
   */
  asCaller?: boolean;
}

/**
 * What an MCP caller gets for a call (`tools/call`'s result): the output as JSON text (a string
 * as it is), with `structuredContent` for an object `outputSchema`; or, for a call that failed,
 * `isError` and the message the caller reads. The gateway adds where to connect to a missing
 * credential's message (its address), which a test has no gateway to take from.
 */
export interface CallerResult {
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: true;
}

/**
 * Runs a tool as the gateway will: validates `input` against `inputSchema`, asks a declared
 * `approval`, runs the handler, and validates the result against `outputSchema`. `ctx.elicit`
 * requests get the tool's path, as at the gateway. With `{ asCaller: true }` it resolves to what
 * an MCP caller would get instead of throwing.
 *
 * @throws ToolError when the input is invalid (listing each issue), whatever the handler throws,
 *   and an Error when the handler's result does not match `outputSchema` (a bug in the tool);
 *   nothing with `asCaller`.
 * @example
 * const result = await runTool(getForecast, { city: 'Oslo' }, createTestContext({ tokens: { weather: 'k' } }));
 * const seen = await runTool(getForecast, { city: '' }, ctx, { asCaller: true });
 * expect(seen.isError).toBe(true);
 */
export function runTool<
  TInputSchema extends InputSchema,
  TOutputSchema extends z.ZodType | undefined,
>(
  tool: Tool<TInputSchema, TOutputSchema>,
  input: z.input<TInputSchema>,
  ctx: TestContext | undefined,
  options: RunToolOptions & { asCaller: true },
): Promise<CallerResult>;
export function runTool<
  TInputSchema extends InputSchema,
  TOutputSchema extends z.ZodType | undefined,
>(
  tool: Tool<TInputSchema, TOutputSchema>,
  input: z.input<TInputSchema>,
  ctx?: TestContext,
  options?: RunToolOptions & { asCaller?: false },
): Promise<RunToolResult<TOutputSchema>>;
export async function runTool(
  tool: Tool,
  input: unknown,
  ctx: TestContext = createTestContext(),
  options: RunToolOptions = {},
): Promise<unknown> {
  if (options.asCaller !== true) return run(tool, input, ctx, options.signal);
  try {
    const output = await run(tool, input, ctx, options.signal);
    return callerOutput(output, tool.outputSchema !== undefined);
  } catch (error) {
    const message = GatewayError.isInstance(error)
      ? error.message
      : `${tool.path} failed unexpectedly. The details are in the gateway's log under execution id ${ctx.executionId}.`;
    return { content: [{ type: 'text', text: message }], isError: true };
  }
}

async function run(
  tool: Tool,
  input: unknown,
  testCtx: TestContext,
  signal = new AbortController().signal,
): Promise<unknown> {
  const parsed = await validateToolInput(tool, input);
  if (!parsed.success) {
    throw new ToolError(`Invalid input for ${tool.path}:\n${formatIssues(parsed.issues)}`);
  }
  // The gateway knows which tool asks: a request without `toolPath` gets this one's.
  const ctx: TestContext = {
    ...testCtx,
    elicit: (request) => testCtx.elicit({ ...request, toolPath: request.toolPath ?? tool.path }),
  };
  let output: unknown;
  try {
    await askDeclaredApproval(tool, ctx, parsed.data as Record<string, unknown>);
    output = await tool.handler(ctx, parsed.data as z.output<InputSchema>, {
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
  } catch (error) {
    if (ApprovalDeniedError.isInstance(error) && error.toolPath === undefined) {
      throw new ApprovalDeniedError(tool.path, error);
    }
    throw error;
  }
  const checked = await validateToolOutput(tool, output);
  if (!checked.success) {
    throw new Error(
      `The result of ${tool.path} does not match its outputSchema:\n${formatIssues(checked.issues)}`,
    );
  }
  return checked.data;
}

/** The gateway's rendering of an output (its `renderOutput`, for text and structured results). */
function callerOutput(output: unknown, structured: boolean): CallerResult {
  const text = typeof output === 'string' ? output : (JSON.stringify(output) ?? 'null');
  if (structured && typeof output === 'object' && output !== null && !Array.isArray(output)) {
    return {
      content: [{ type: 'text', text: JSON.stringify(output) }],
      structuredContent: output as Record<string, unknown>,
    };
  }
  return { content: [{ type: 'text', text }] };
}
