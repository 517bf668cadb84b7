import { definePlugin, defineTool } from '@gateway/sdk';
import { validateToolInput } from '@gateway/sdk/kernel';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PluginTool } from './plugin-tool.js';

// Issue 36: the gateway checked a plugin tool's input with its own copy of the sdk's checks, so
// `runTool` in a plugin's tests and a call through the gateway could disagree.
describe('a plugin tool checks its input as the sdk does', () => {
  const schemas = {
    plain: z.object({ title: z.string(), body: z.string().optional() }),
    strict: z.strictObject({ title: z.string() }),
    loose: z.looseObject({ title: z.string() }),
    empty: z.object({}),
  };
  const inputs: Record<string, unknown>[] = [
    { title: 'a' },
    { title: 'a', body: 'b' },
    { title: 'a', text: 'misspelled' },
    { text: 'misspelled' },
    { title: 3, extra: true },
    {},
  ];

  for (const [kind, inputSchema] of Object.entries(schemas)) {
    it(`for a ${kind} object schema`, async () => {
      const tool = defineTool({
        path: 'jot.notes.create',
        name: 'Create Note',
        description: 'Creates a note.',
        inputSchema,
        handler: async () => ({ ok: true }),
      });
      const plugin = definePlugin({ id: 'jot', name: 'Jot', description: 'Notes.', tools: [tool] });
      const source = new PluginTool(tool, plugin, false);
      for (const input of inputs) {
        const sdk = await validateToolInput(tool, input);
        const gateway = await source.checkInput(input);
        expect(gateway.success).toBe(sdk.success);
        if (sdk.success && gateway.success) expect(gateway.data).toEqual(sdk.data);
        if (!sdk.success && !gateway.success) {
          expect(gateway.error.issues).toEqual(sdk.issues);
          expect(sdk.issues.length).toBeGreaterThan(0);
        }
      }
    });
  }
});
