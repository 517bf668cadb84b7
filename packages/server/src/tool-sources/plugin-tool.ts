import type { Plugin, Tool } from '@gateway/sdk';
import {
  askDeclaredApproval,
  formatIssues,
  validateToolInput,
  validateToolOutput,
} from '@gateway/sdk/kernel';
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

  /** `structured`: whether results carry `structuredContent` (an object output schema). */
  constructor(tool: Tool, plugin: Plugin, structured: boolean) {
    this.tool = tool;
    this.credentials = plugin;
    this.#structured = structured;
  }

  /**
   * The sdk's own `validateToolInput`, so a plugin's tests (`runTool`) and the gateway agree on
   * every input, unknown arguments included (issue 18).
   */
  async checkInput(args: Record<string, unknown>): Promise<CheckedInput> {
    const checked = await validateToolInput(this.tool, args);
    return checked.success ? checked : { success: false, error: { issues: checked.issues } };
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
