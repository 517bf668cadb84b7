import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../tool/define-tool.js';
import { runTool } from './run-tool.js';

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
});
