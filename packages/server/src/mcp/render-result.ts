import { type CallToolResult, type ContentBlock, isSpecType } from '@modelcontextprotocol/server';
import { isRecord } from '../json/is-record.js';

/**
 * A handler's validated output as an MCP result. Structured tools (object output schemas) answer
 * `structuredContent` plus its JSON as text, as the spec asks for older clients. Other tools
 * answer text: a string as it is, anything else as JSON. A tool without an output schema may
 * instead return MCP content itself, `{ content: [...] }` of valid content blocks (images, audio,
 * resources), which is passed through.
 *
 * @example
 * renderOutput({ temperature: 21 }, true); // { content: [{ type: 'text', text: '{"temperature":21}' }], structuredContent: { temperature: 21 } }
 */
export function renderOutput(output: unknown, structured: boolean): CallToolResult {
  if (structured && isRecord(output)) {
    return { content: [{ type: 'text', text: JSON.stringify(output) }], structuredContent: output };
  }
  const blocks = contentBlocks(output);
  if (!structured && blocks !== undefined) return { content: blocks };
  const text = typeof output === 'string' ? output : (JSON.stringify(output) ?? 'null');
  return { content: [{ type: 'text', text }] };
}

/** An error result: what the user (and the model) reads. */
export function errorResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

function contentBlocks(output: unknown): ContentBlock[] | undefined {
  if (!isRecord(output) || Object.keys(output).length !== 1) return undefined;
  const { content } = output;
  if (!Array.isArray(content) || content.length === 0) return undefined;
  const blocks: ContentBlock[] = [];
  for (const block of content) {
    if (!isSpecType.ContentBlock(block)) return undefined;
    blocks.push(block);
  }
  return blocks;
}
