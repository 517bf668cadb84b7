import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import type { PluginContext, ToolCall } from '../context/types.js';
import { definePlugin } from '../plugin/define-plugin.js';
import { defineTool } from './define-tool.js';
import type { Tool } from './types.js';

describe('defineTool types', () => {
  it('infers the handler input from inputSchema', () => {
    defineTool({
      path: 'demo.items.get',
      name: 'Get Item',
      description: 'Gets an item.',
      inputSchema: z.object({ id: z.string(), limit: z.number().default(10) }),
      async handler(ctx, input, call) {
        expectTypeOf(ctx).toEqualTypeOf<PluginContext>();
        expectTypeOf(call).toEqualTypeOf<ToolCall>();
        expectTypeOf(input).toEqualTypeOf<{ id: string; limit: number }>();
        return input.id;
      },
    });
  });

  it('checks the handler result against outputSchema', () => {
    defineTool({
      path: 'demo.items.count',
      name: 'Count Items',
      description: 'Counts items.',
      inputSchema: z.object({}),
      outputSchema: z.object({ count: z.number() }),
      async handler() {
        return { count: 3 };
      },
    });

    defineTool({
      path: 'demo.items.count',
      name: 'Count Items',
      description: 'Counts items.',
      inputSchema: z.object({}),
      outputSchema: z.object({ count: z.number() }),
      // @ts-expect-error the result must match outputSchema
      async handler() {
        return { count: 'three' };
      },
    });
  });

  it('accepts only object schemas as input', () => {
    defineTool({
      path: 'demo.items.bad',
      name: 'Bad',
      description: 'Bad input schema.',
      // @ts-expect-error inputSchema must be an object schema
      inputSchema: z.string(),
      async handler() {
        return null;
      },
    });
  });

  it('lets tools of different input types share one plugin', () => {
    const a = defineTool({
      path: 'demo.a.run',
      name: 'Run A',
      description: 'A.',
      inputSchema: z.object({ a: z.string() }),
      async handler(_ctx, { a }) {
        return a;
      },
    });
    const b = defineTool({
      path: 'demo.b.run',
      name: 'Run B',
      description: 'B.',
      inputSchema: z.object({ b: z.number() }),
      outputSchema: z.number(),
      async handler(_ctx, { b }) {
        return b;
      },
    });
    expectTypeOf(a).toExtend<Tool>();
    expectTypeOf(b).toExtend<Tool>();
    definePlugin({ id: 'demo', name: 'Demo', description: 'Demo.', tools: [a, b] });
  });
});
