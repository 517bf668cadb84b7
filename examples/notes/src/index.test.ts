import { isPlugin, ToolError, validatePlugin } from '@gateway/sdk';
import { createTestContext, runTool } from '@gateway/sdk/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import plugin, { createNotesPlugin } from './index.js';

describe('notes plugin', () => {
  it('is a valid plugin with no credentials, whose tools live under notes.', () => {
    expect(isPlugin(plugin)).toBe(true);
    expect(validatePlugin(plugin)).toEqual([]);
    expect(plugin.authProviders).toEqual([]);
    expect(
      plugin.tools.map((tool) => ({
        path: tool.path,
        destructive: tool.destructive ?? false,
        serviceAccountAllowed: tool.serviceAccountAllowed ?? false,
      })),
    ).toEqual([
      { path: 'notes.notes.list', destructive: false, serviceAccountAllowed: true },
      { path: 'notes.notes.get', destructive: false, serviceAccountAllowed: true },
      { path: 'notes.notes.create', destructive: true, serviceAccountAllowed: false },
      { path: 'notes.notes.update', destructive: true, serviceAccountAllowed: false },
      { path: 'notes.notes.delete', destructive: true, serviceAccountAllowed: false },
    ]);
  });

  it('describes every input field for AI clients, in schemas MCP can carry', () => {
    for (const tool of plugin.tools) {
      const input = z.toJSONSchema(tool.inputSchema, { io: 'input' });
      for (const [field, property] of Object.entries(input.properties ?? {})) {
        const description = typeof property === 'object' ? property.description : undefined;
        expect(description, `${tool.path} input field ${field}`).toBeTruthy();
      }
      const output = tool.outputSchema;
      if (output) expect(() => z.toJSONSchema(output, { io: 'output' })).not.toThrow();
    }
  });

  it('gives each plugin instance its own store', async () => {
    const first = createNotesPlugin();
    const second = createNotesPlugin();
    const tool = (p: typeof first, path: string) => {
      const found = p.tools.find((t) => t.path === path);
      if (found === undefined) throw new Error(`${path} is missing`);
      return found;
    };
    const ctx = createTestContext({ userId: 'ada' });

    await runTool(tool(first, 'notes.notes.create'), { title: 'Only in first' }, ctx);

    expect(await runTool(tool(first, 'notes.notes.list'), {}, ctx)).toMatchObject({
      notes: [{ title: 'Only in first' }],
    });
    expect(await runTool(tool(second, 'notes.notes.list'), {}, ctx)).toEqual({ notes: [] });
  });

  // Issue 18: `text` for `body` was dropped silently and an empty note was created.
  it('refuses a misspelled argument, naming it, and creates nothing', async () => {
    const notes = createNotesPlugin();
    const find = (path: string) => {
      const found = notes.tools.find((t) => t.path === path);
      if (found === undefined) throw new Error(`${path} is missing`);
      return found;
    };
    const ctx = createTestContext({ userId: 'ada' });
    const error = await runTool(
      find('notes.notes.create'),
      { title: 'Groceries', text: 'milk' } as never,
      ctx,
    ).catch((e: unknown) => e);
    expect(ToolError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('text: unknown argument');
    expect(await runTool(find('notes.notes.list'), {}, ctx)).toEqual({ notes: [] });
  });
});
