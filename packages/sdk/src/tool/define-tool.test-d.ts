import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import type { PluginContext, ToolCall } from '../context/types.js';
import { definePlugin } from '../plugin/define-plugin.js';
import { defineTool, defineToolFor } from './define-tool.js';
import type { CheckedInputSchema, InputSchemaNotObject, Tool, ToolAnnotations } from './types.js';

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
    const count = defineTool({
      path: 'demo.items.count',
      name: 'Count Items',
      description: 'Counts items.',
      inputSchema: z.object({}),
      outputSchema: z.object({ count: z.number() }),
      async handler() {
        return { count: 3 };
      },
    });
    expectTypeOf(count.handler).returns.toEqualTypeOf<
      Promise<{ count: number }> | { count: number }
    >();

    // A handler may return its result directly (issue 34).
    defineTool({
      path: 'demo.items.count',
      name: 'Count Items',
      description: 'Counts items.',
      inputSchema: z.object({}),
      outputSchema: z.object({ count: z.number() }),
      handler: () => ({ count: 3 }),
    });
    defineTool({
      path: 'demo.items.count',
      name: 'Count Items',
      description: 'Counts items.',
      inputSchema: z.object({}),
      outputSchema: z.object({ count: z.number() }),
      // @ts-expect-error a sync result is checked against outputSchema too
      handler: () => ({ count: 'three' }),
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

    defineTool({
      path: 'demo.items.count',
      name: 'Count Items',
      description: 'Counts items.',
      inputSchema: z.object({}),
      outputSchema: z.object({ count: z.number() }),
      // @ts-expect-error a field outputSchema requires is missing
      async handler() {
        return {};
      },
    });
  });

  it('takes the input type of outputSchema, so defaults may be left out', () => {
    const tool = defineTool({
      path: 'demo.items.page',
      name: 'Page Items',
      description: 'A page of items.',
      inputSchema: z.object({}),
      outputSchema: z.object({ items: z.array(z.string()), more: z.boolean().default(false) }),
      async handler() {
        return { items: ['a'] };
      },
    });
    expectTypeOf(tool.handler).returns.toEqualTypeOf<
      | Promise<{ items: string[]; more?: boolean | undefined }>
      | { items: string[]; more?: boolean | undefined }
    >();
  });

  it('lets a tool without outputSchema return anything', () => {
    const tool = defineTool({
      path: 'demo.items.raw',
      name: 'Raw Items',
      description: 'Items as they come.',
      inputSchema: z.object({}),
      async handler() {
        return new Map([['a', 1]]);
      },
    });
    expectTypeOf(tool.handler).returns.toEqualTypeOf<unknown>();
  });

  it('accepts only object schemas as input, and says so by name (issue 34)', () => {
    defineTool({
      path: 'demo.items.bad',
      name: 'Bad',
      description: 'Bad input schema.',
      // @ts-expect-error inputSchema must be a z.object({...}) (tsc prints that message)
      inputSchema: z.string(),
      async handler() {
        return null;
      },
    });
    defineTool({
      path: 'demo.items.bad',
      name: 'Bad',
      description: 'Bad input schema.',
      // @ts-expect-error an optional object is not an object schema either
      inputSchema: z.object({ id: z.string() }).optional(),
      handler: () => null,
    });
    // What tsc compares a non-object schema with, so its error is this sentence.
    expectTypeOf<CheckedInputSchema<z.ZodString>>().toEqualTypeOf<InputSchemaNotObject>();
    expectTypeOf<InputSchemaNotObject>().toEqualTypeOf<'inputSchema must be a z.object({...}) of named arguments, e.g. z.object({ query: z.string() })'>();
    const schema = z.object({ id: z.string() });
    expectTypeOf<CheckedInputSchema<typeof schema>>().toEqualTypeOf<typeof schema>();

    // An object schema with refinements is still one, and keeps its inferred input.
    const tool = defineTool({
      path: 'demo.items.get',
      name: 'Get Item',
      description: 'Gets an item.',
      inputSchema: z.object({ id: z.string() }).refine((value) => value.id !== ''),
      handler: (_ctx, input) => {
        expectTypeOf(input).toEqualTypeOf<{ id: string }>();
        return input.id;
      },
    });
    expectTypeOf(tool).toExtend<Tool>();
  });

  it('takes a sync handler, for tools and for defineToolFor tools (issue 34)', () => {
    const tool = defineTool({
      path: 'demo.items.echo',
      name: 'Echo',
      description: 'Echoes.',
      inputSchema: z.object({ text: z.string() }),
      handler(_ctx, { text }) {
        return text;
      },
    });
    expectTypeOf(tool).toExtend<Tool>();
    const defineDemoTool = defineToolFor([{ id: 'demo', type: 'api_key', provider: 'demo' }]);
    defineDemoTool({
      path: 'demo.items.echo',
      name: 'Echo',
      description: 'Echoes.',
      inputSchema: z.object({ text: z.string() }),
      outputSchema: z.object({ text: z.string() }),
      authProvider: 'demo',
      handler: (_ctx, { text }) => ({ text }),
    });
    defineDemoTool({
      path: 'demo.items.echo',
      name: 'Echo',
      description: 'Echoes.',
      // @ts-expect-error inputSchema must be a z.object({...}) here too
      inputSchema: z.array(z.string()),
      handler: () => null,
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

  it('takes the three hints a tool may declare as annotations, and nothing else', () => {
    const search = defineTool({
      path: 'demo.web.search',
      name: 'Search the Web',
      description: 'Searches.',
      inputSchema: z.object({ q: z.string() }),
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
      async handler() {
        return [];
      },
    });
    expectTypeOf(search.annotations).toEqualTypeOf<ToolAnnotations | undefined>();

    defineTool({
      path: 'demo.web.post',
      name: 'Post',
      description: 'Posts.',
      inputSchema: z.object({}),
      // @ts-expect-error destructiveHint comes from `destructive`, not annotations
      annotations: { destructiveHint: true },
      async handler() {
        return null;
      },
    });

    defineTool({
      path: 'demo.web.post',
      name: 'Post',
      description: 'Posts.',
      inputSchema: z.object({}),
      // @ts-expect-error a hint is true or false
      annotations: { readOnlyHint: 'yes' },
      async handler() {
        return null;
      },
    });
  });
});
