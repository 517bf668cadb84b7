import type { Tool as McpTool } from '@modelcontextprotocol/client';

/** The largest tool definition (name, description, schemas) kept, as JSON. */
export const MAX_TOOL_BYTES = 64 * 1024;

/**
 * The tools of an upstream's list that fit: each at most {@link MAX_TOOL_BYTES} as JSON, all
 * together at most `maxBytes` (the largest message an upstream may send), in list order. The list
 * is stored, shared by every instance and served to every client that sees the source on every
 * `tools/list`: an upstream must not make that megabytes. `left` names the others.
 */
export function toolsWithinBudget(
  tools: readonly McpTool[],
  maxBytes: number,
): { kept: McpTool[]; left: string[] } {
  let budget = maxBytes;
  const kept: McpTool[] = [];
  const left: string[] = [];
  for (const tool of tools) {
    const bytes = jsonBytes(tool);
    if (bytes <= MAX_TOOL_BYTES && bytes <= budget) {
      kept.push(tool);
      budget -= bytes;
    } else {
      left.push(String(tool.name).slice(0, 100));
    }
  }
  return { kept, left };
}

/** `value` as JSON, in UTF-16 code units (close enough for a budget); Infinity if it has none. */
function jsonBytes(value: unknown): number {
  try {
    return JSON.stringify(value)?.length ?? 0;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}
