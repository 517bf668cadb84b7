import { acceptedInputKeys, unknownKeyIssues, withUnknownKeyIssues } from './input-keys.js';
import type { ValidationResult } from './schema-issue.js';
import type { InputSchema, Tool } from './types.js';

// Keyed by the schema, so a tool validated many times reads its definition once.
const keysCache = new WeakMap<InputSchema, ReadonlySet<string> | undefined>();

/**
 * Validates `input` against the tool's `inputSchema`, as the gateway does before a call. An
 * argument the schema does not declare is an issue naming it (unless the schema takes extra keys,
 * see {@link acceptedInputKeys}), rather than being dropped silently.
 */
export async function validateToolInput(tool: Tool, input: unknown): Promise<ValidationResult> {
  const schema = tool.inputSchema;
  if (!keysCache.has(schema)) keysCache.set(schema, acceptedInputKeys(schema));
  const accepted = keysCache.get(schema);
  const unknown = accepted === undefined ? [] : unknownKeyIssues(input, accepted);
  const result = await schema.safeParseAsync(input);
  if (result.success && unknown.length === 0) return { success: true, data: result.data };
  return {
    success: false,
    issues: withUnknownKeyIssues(result.success ? [] : result.error.issues, unknown),
  };
}

/** Validates a handler's result against the tool's `outputSchema` (when it has one). */
export async function validateToolOutput(tool: Tool, output: unknown): Promise<ValidationResult> {
  if (tool.outputSchema === undefined) return { success: true, data: output };
  const result = await tool.outputSchema.safeParseAsync(output);
  return result.success
    ? { success: true, data: result.data }
    : { success: false, issues: result.error.issues };
}
