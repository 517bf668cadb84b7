import {
  askDeclaredApproval,
  formatIssues,
  type Plugin,
  type Tool,
  unknownKeyIssues,
  validateToolOutput,
  withUnknownKeyIssues,
} from '@gateway/sdk';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { isRecord } from '../json/is-record.js';
import { CallFailure, type CheckedInput, type SourceCall, type ToolSource } from './tool-source.js';

const NO_RESULT: CallToolResult = Object.freeze({ content: [] });

/**
 * A plugin tool as a {@link ToolSource}: its zod input schema checks the arguments, its handler
 * runs with the call's context, and its output is checked against `outputSchema` and rendered.
 */
export class PluginTool implements ToolSource {
  readonly kind = 'plugin';
  readonly tool: Tool;
  readonly credentials: Plugin;
  readonly #structured: boolean;
  readonly #inputKeys: ReadonlySet<string> | undefined;

  /**
   * `structured`: whether results carry `structuredContent` (an object output schema);
   * `inputKeys`: the argument names the tool accepts when it refuses any other (issue 18), worked
   * out once at mount, so a call only looks its keys up.
   */
  constructor(
    tool: Tool,
    plugin: Plugin,
    structured: boolean,
    inputKeys: ReadonlySet<string> | undefined,
  ) {
    this.tool = tool;
    this.credentials = plugin;
    this.#structured = structured;
    this.#inputKeys = inputKeys;
  }

  async checkInput(args: Record<string, unknown>): Promise<CheckedInput> {
    const parsed = await this.tool.inputSchema.safeParseAsync(args);
    if (this.#inputKeys === undefined) return parsed;
    // A misspelled argument would otherwise be dropped and the tool run without it.
    const unknown = unknownKeyIssues(args, this.#inputKeys);
    if (unknown.length === 0) return parsed;
    const issues = withUnknownKeyIssues(parsed.success ? [] : parsed.error.issues, unknown);
    return { success: false, error: { issues } };
  }

  async run(input: unknown, call: SourceCall): Promise<CallToolResult> {
    // What checkInput parsed with the tool's object schema: a record, checked for the type system.
    if (!isRecord(input)) throw new TypeError('input is not an object');
    // `approval: (input) => message`: asked before the handler, as requireApproval() would be.
    await askDeclaredApproval(this.tool, call.context, input);
    const output = await this.tool.handler(call.context, input, call);
    // Once the handler has asked the client something its output is not the call's answer.
    if (call.questionPending) return NO_RESULT;
    const checked = await validateToolOutput(this.tool, output);
    if (!checked.success) {
      call.log.error('tool output does not match its output schema', {
        issues: call.redaction.text(formatIssues(checked.issues)),
      });
      throw new CallFailure(
        `${this.tool.path} returned a result that does not match its output schema. Execution id: ${call.executionId}.`,
        'Output does not match the output schema',
      );
    }
    rendering ??= await import('../mcp/render-result.js');
    return rendering.renderOutput(checked.data, this.#structured);
  }
}

/** MCP result rendering: loaded with the first call (the MCP SDK), not when plugins load at start. */
let rendering: typeof import('../mcp/render-result.js') | undefined;
