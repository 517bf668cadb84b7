import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { requireApproval } from '../approval/require-approval.js';
import { defineTool } from '../tool/define-tool.js';
import { type CallerResult, runTool } from './run-tool.js';

const withOutput = defineTool({
  path: 'demo.items.count',
  name: 'Count Items',
  description: 'Counts items.',
  inputSchema: z.object({ prefix: z.string().default('') }),
  outputSchema: z.object({ count: z.number() }),
  async handler() {
    return { count: 1 };
  },
});

describe('runTool types', () => {
  it('takes the schema input type and resolves to the parsed output type', async () => {
    expectTypeOf(runTool(withOutput, {})).resolves.toEqualTypeOf<{ count: number }>();
    // @ts-expect-error prefix must be a string
    void runTool(withOutput, { prefix: 1 });
  });

  it('resolves to what an MCP caller gets with asCaller', () => {
    expectTypeOf(
      runTool(withOutput, {}, undefined, { asCaller: true }),
    ).resolves.toEqualTypeOf<CallerResult>();
    expectTypeOf(runTool(withOutput, {}, undefined, { asCaller: false })).resolves.toEqualTypeOf<{
      count: number;
    }>();
  });

  it('takes an elicit request without toolPath', () => {
    defineTool({
      path: 'demo.items.delete',
      name: 'Delete Item',
      description: 'Deletes an item.',
      inputSchema: z.object({ id: z.string() }),
      async handler(ctx, { id }) {
        await requireApproval(ctx, { message: `Delete ${id}?` });
        const answer = await ctx.elicit({ message: 'Why?', type: 'form', args: { reason: '' } });
        return { approved: answer.approved };
      },
    });
  });
});
