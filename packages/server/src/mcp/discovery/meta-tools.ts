import { formatIssues } from '@gateway/sdk/kernel';
import type {
  CallToolRequestParams,
  CallToolResult,
  Tool as McpTool,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { deepFreeze } from '../../json/deep-freeze.js';
import { errorResult } from '../render-result.js';
import type { ToolIndex } from '../tool-list.js';
import { searchIndexOf } from './search-index.js';

/** The names of the meta-tools; the `gateway` namespace is reserved for them. */
export const SEARCH_TOOLS = 'gateway.search_tools';
export const DESCRIBE_TOOLS = 'gateway.describe_tools';
export const CALL_TOOL = 'gateway.call_tool';

/** The most tools one search answers. */
export const MAX_SEARCH_LIMIT = 50;
const DEFAULT_SEARCH_LIMIT = 10;
/** The most tools one `describe_tools` names. */
export const MAX_DESCRIBE_NAMES = 20;
/**
 * The most bytes of schemas one `describe_tools` answers (the first tool named always comes
 * whole); the rest are listed in `omitted`, to ask for again.
 */
export const MAX_DESCRIBE_BYTES = 128 * 1024;

const searchInput = z
  .object({
    query: z
      .string()
      .max(500)
      .describe(
        'Words for what you want to do, e.g. "create note" or "list repositories"; empty lists tools by name',
      ),
    limit: z
      .number()
      .int()
      .min(1)
      .max(MAX_SEARCH_LIMIT)
      .optional()
      .describe(
        `How many tools to answer, at most ${MAX_SEARCH_LIMIT} (default ${DEFAULT_SEARCH_LIMIT})`,
      ),
  })
  .strict();

const summary = z.object({
  name: z.string().describe('The tool name to describe or call'),
  title: z.string(),
  description: z.string().describe('The first line of its description'),
  asksApproval: z.boolean().describe('Calling it asks the user to approve first'),
});

const searchOutput = z.object({
  tools: z.array(summary).describe('The best matches, best first'),
  total: z.number().int().describe('How many tools match in all'),
});

const describeInput = z
  .object({
    names: z
      .array(z.string().max(200))
      .min(1)
      .max(MAX_DESCRIBE_NAMES)
      .describe('Tool names from gateway.search_tools'),
  })
  .strict();

const describeOutput = z.object({
  tools: z
    .array(
      z.object({
        name: z.string(),
        title: z.string().optional(),
        description: z.string().optional(),
        inputSchema: z.record(z.string(), z.unknown()),
        outputSchema: z.record(z.string(), z.unknown()).optional(),
        annotations: z.record(z.string(), z.unknown()).optional(),
      }),
    )
    .describe('Each tool named that you may call, with its full schemas'),
  notFound: z.array(z.string()).describe('Names of no tool you may call'),
  omitted: z
    .array(z.string())
    .describe('Tools left out to keep the answer short: describe them in another call'),
});

const callInput = z
  .object({
    name: z.string().max(200).describe('The tool name, from gateway.search_tools'),
    arguments: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('Its arguments, as its input schema (gateway.describe_tools) says'),
  })
  .strict();

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): McpTool['inputSchema'] {
  return z.toJSONSchema(schema, { io }) as McpTool['inputSchema'];
}

/** The `tools/list` of a discovery endpoint: the three meta-tools. */
export const META_TOOLS: readonly McpTool[] = deepFreeze([
  {
    name: SEARCH_TOOLS,
    title: 'Search Tools',
    description:
      'Finds the tools you may call by what they do: answers the best matches with their name, title, a one-line description and whether calling asks the user to approve. Then use gateway.describe_tools for their arguments and gateway.call_tool to run one.',
    inputSchema: jsonSchema(searchInput, 'input'),
    outputSchema: jsonSchema(searchOutput, 'output'),
    annotations: { title: 'Search Tools', readOnlyHint: true, openWorldHint: false },
  },
  {
    name: DESCRIBE_TOOLS,
    title: 'Describe Tools',
    description:
      'Answers the full input and output schemas and annotations of the tools named (from gateway.search_tools), to call them with gateway.call_tool.',
    inputSchema: jsonSchema(describeInput, 'input'),
    outputSchema: jsonSchema(describeOutput, 'output'),
    annotations: { title: 'Describe Tools', readOnlyHint: true, openWorldHint: false },
  },
  {
    name: CALL_TOOL,
    title: 'Call Tool',
    description:
      "Runs a tool found with gateway.search_tools, with its arguments, exactly as calling it directly: tools that change data ask the user to approve first, naming the tool. Answers the tool's own result.",
    inputSchema: jsonSchema(callInput, 'input'),
    annotations: {
      title: 'Call Tool',
      readOnlyHint: false,
      destructiveHint: true,
      openWorldHint: true,
    },
  },
]);

const META_NAMES = new Set([SEARCH_TOOLS, DESCRIBE_TOOLS, CALL_TOOL]);

/** Whether `name` is one of the meta-tools. */
export function isMetaTool(name: string): boolean {
  return META_NAMES.has(name);
}

/**
 * A meta-tool call's outcome: an answer of its own (`search_tools`, `describe_tools`, arguments
 * that do not fit), or for `call_tool` the call of the real tool, which the caller runs through
 * the one call pipeline.
 */
export type MetaOutcome = { result: CallToolResult } | { call: CallToolRequestParams };

/**
 * Answers a call of a meta-tool (`params.name` is one, see {@link isMetaTool}) over the tools of
 * `index` and no others.
 */
export function answerMetaTool(index: ToolIndex, params: CallToolRequestParams): MetaOutcome {
  const args = params.arguments ?? {};
  if (params.name === CALL_TOOL) {
    const parsed = callInput.safeParse(args);
    if (!parsed.success) return { result: invalid(CALL_TOOL, parsed.error) };
    const { name, arguments: inner } = parsed.data;
    return { call: inner === undefined ? { name } : { name, arguments: inner } };
  }
  if (params.name === SEARCH_TOOLS) {
    const parsed = searchInput.safeParse(args);
    if (!parsed.success) return { result: invalid(SEARCH_TOOLS, parsed.error) };
    const { query, limit = DEFAULT_SEARCH_LIMIT } = parsed.data;
    return { result: structured(searchIndexOf(index).search(query, limit)) };
  }
  const parsed = describeInput.safeParse(args);
  if (!parsed.success) return { result: invalid(DESCRIBE_TOOLS, parsed.error) };
  return { result: structured(describe(index, [...new Set(parsed.data.names)])) };
}

function describe(index: ToolIndex, names: string[]) {
  const search = searchIndexOf(index);
  const tools: McpTool[] = [];
  const notFound: string[] = [];
  const omitted: string[] = [];
  let bytes = 0;
  for (const name of names) {
    const entry = search.entry(name);
    if (entry === undefined) {
      notFound.push(name);
      continue;
    }
    const size = JSON.stringify(entry).length;
    if (tools.length > 0 && bytes + size > MAX_DESCRIBE_BYTES) {
      omitted.push(name);
      continue;
    }
    bytes += size;
    tools.push(entry);
  }
  return { tools, notFound, omitted };
}

function structured(output: object): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(output) }],
    structuredContent: output as Record<string, unknown>,
  };
}

function invalid(name: string, error: z.ZodError): CallToolResult {
  return errorResult(`Invalid input for ${name}:\n${formatIssues(error.issues)}`);
}
