import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from './define-tool.js';
import { acceptedInputKeys, unknownKeyIssues } from './input-keys.js';
import { formatIssues } from './schema-issue.js';
import { validateToolInput } from './validate-call.js';

// Issue 18: a misspelled argument was dropped by zod's default and the tool ran without it.
describe('unknown tool arguments', () => {
  const shape = { title: z.string(), body: z.string().optional() };

  it('closes a plain or strict object, and leaves open one that says it takes extra keys', () => {
    expect(acceptedInputKeys(z.object(shape))).toEqual(new Set(['title', 'body']));
    expect(acceptedInputKeys(z.strictObject(shape))).toEqual(new Set(['title', 'body']));
    expect(acceptedInputKeys(z.looseObject(shape))).toBeUndefined();
    expect(acceptedInputKeys(z.object(shape).passthrough())).toBeUndefined();
    expect(acceptedInputKeys(z.object(shape).catchall(z.number()))).toBeUndefined();
    expect(acceptedInputKeys(z.object(shape).meta({ additionalProperties: true }))).toBeUndefined();
    expect(acceptedInputKeys(z.object(shape).meta({ additionalProperties: false }))).toEqual(
      new Set(['title', 'body']),
    );
  });

  it('names each unknown key and the arguments there are', () => {
    const accepted = new Set(['title', 'body']);
    expect(unknownKeyIssues({ title: 'a', body: 'b' }, accepted)).toEqual([]);
    expect(formatIssues(unknownKeyIssues({ title: 'a', text: 'b', tags: [] }, accepted))).toBe(
      'text: unknown argument (the arguments are: title, body)\n' +
        'tags: unknown argument (the arguments are: title, body)',
    );
    expect(formatIssues(unknownKeyIssues({ x: 1 }, new Set()))).toBe(
      'x: unknown argument (the tool takes no arguments)',
    );
  });

  it('reports unknown keys with the schema issues, once even for a strict schema', async () => {
    const tool = (inputSchema: z.ZodObject) =>
      defineTool({
        path: 'demo.notes.create',
        name: 'Create Note',
        description: 'Creates a note.',
        inputSchema,
        async handler() {
          return {};
        },
      });
    for (const schema of [z.object(shape), z.strictObject(shape)]) {
      const result = await validateToolInput(tool(schema), { text: 'milk' });
      expect(result.success).toBe(false);
      if (!result.success) {
        expect(formatIssues(result.issues)).toBe(
          'text: unknown argument (the arguments are: title, body)\n' +
            'title: Invalid input: expected string, received undefined',
        );
      }
    }
    const loose = await validateToolInput(tool(z.looseObject(shape)), { title: 'a', text: 'b' });
    expect(loose).toEqual({ success: true, data: { title: 'a', text: 'b' } });
  });
});
