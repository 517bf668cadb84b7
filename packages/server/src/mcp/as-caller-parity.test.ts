/**
 * Issue 34: `runTool(tool, input, ctx, { asCaller: true })` resolves to what an MCP caller gets.
 * The same tools are called through a real gateway over MCP and with the harness, and each
 * answer (a text result, a structured one, invalid input, an undeclared argument, a denial, a
 * `ToolError`, a crash) is the same, but for the execution id an unexpected error names. (The
 * gateway words invalid input as the harness does since this test: it said "Invalid arguments".)
 */
import { definePlugin, defineTool, requireApproval, type Tool, ToolError } from '@gateway/sdk';
import { createTestContext, runTool } from '@gateway/sdk/testing';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { connectV1, startMcpGateway } from '#test/mcp/mcp-test-kit.js';

const remove = defineTool({
  path: 'notes.notes.delete',
  name: 'Delete Note',
  description: 'Deletes a note.',
  inputSchema: z.object({ id: z.string().min(1).describe('The note') }),
  destructive: true,
  async handler(ctx, { id }) {
    await requireApproval(ctx, { message: `Delete note ${id}?`, args: { id } });
    if (id === 'locked') throw new ToolError(`Note ${id} is locked; unlock it first.`);
    if (id === 'crash') throw new Error('disk on fire at /var/notes');
    return `deleted ${id}`;
  },
});

const count = defineTool({
  path: 'notes.notes.count',
  name: 'Count Notes',
  description: 'Counts notes.',
  inputSchema: z.object({ tag: z.string().default('all').describe('A tag') }),
  outputSchema: z.object({ tag: z.string(), total: z.number() }),
  handler: (_ctx, { tag }) => ({ tag, total: 3 }),
});

const plugin = definePlugin({
  id: 'notes',
  name: 'Notes',
  description: 'Notes.',
  tools: [remove, count],
});

/** The parts of a result a caller reads, with the execution id an unexpected error names blanked. */
function seen(result: unknown): unknown {
  const { content, structuredContent, isError } = result as Record<string, unknown>;
  const text = JSON.stringify({ content, structuredContent, isError: isError === true });
  return JSON.parse(text.replace(/execution id [\w-]+/g, 'execution id <id>'));
}

const CASES: readonly (readonly [string, Tool, Record<string, unknown>, boolean])[] = [
  ['a text result', remove, { id: 'n1' }, true],
  ['a structured result, with defaults applied', count, {}, true],
  ['input its schema refuses', remove, { id: '' }, true],
  ['an argument its schema does not declare', remove, { id: 'n1', title: 'x' }, true],
  ['a denial', remove, { id: 'n1' }, false],
  ['a ToolError', remove, { id: 'locked' }, true],
  ['an unexpected error', remove, { id: 'crash' }, true],
];

describe('runTool asCaller', () => {
  it.each(CASES)('gives what an MCP caller gets for %s', async (_case, tool, input, approve) => {
    const gw = await startMcpGateway({ plugins: [plugin] });
    const alice = await gw.user({ admin: true });
    const { client } = await connectV1(gw.url, alice.mcpToken, { elicitation: true });
    client.setRequestHandler(ElicitRequestSchema, async () =>
      approve ? { action: 'accept', content: { approve: true } } : { action: 'decline' },
    );
    const overMcp = await client.callTool({ name: tool.path, arguments: input });

    const harness = await runTool(tool, input, createTestContext({ plugin, approve }), {
      asCaller: true,
    });

    expect(seen(harness)).toEqual(seen(overMcp));
  });
});
