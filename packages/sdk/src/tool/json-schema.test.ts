import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PluginDefinitionError } from '../errors/plugin-definition-error.js';
import { definePlugin } from '../plugin/define-plugin.js';
import { defineTool } from './define-tool.js';
import { jsonSchemaProblems, toolJsonSchema } from './json-schema.js';

const tool = (path: string, inputSchema: z.ZodObject, outputSchema?: z.ZodType) =>
  defineTool({
    path,
    name: 'Do Thing',
    description: 'Does a thing.',
    inputSchema,
    ...(outputSchema === undefined ? {} : { outputSchema }),
    async handler() {
      return {};
    },
  });

describe('toolJsonSchema', () => {
  it('converts what JSON Schema can express and says why not for the rest', () => {
    expect(toolJsonSchema(z.object({ at: z.iso.datetime() }), 'input')).toMatchObject({
      schema: { type: 'object', properties: { at: { type: 'string', format: 'date-time' } } },
    });
    expect(toolJsonSchema(z.object({ at: z.date() }), 'input')).toEqual({
      reason: 'Date cannot be represented in JSON Schema',
    });
    // A transform has an input type but no output one.
    const trimmed = z.object({ name: z.string().transform((text) => text.trim()) });
    expect(toolJsonSchema(trimmed, 'input')).toHaveProperty('schema');
    expect(toolJsonSchema(trimmed, 'output')).toEqual({
      reason: 'Transforms cannot be represented in JSON Schema',
    });
  });
});

describe('jsonSchemaProblems', () => {
  it('names every tool and field whose schema has no JSON Schema, with what to use instead', () => {
    const plugin = definePlugin({
      id: 'demo',
      name: 'Demo',
      description: 'Demo.',
      tools: [
        tool('demo.a.ok', z.object({ q: z.string() }), z.object({ n: z.number() })),
        tool('demo.a.date', z.object({ since: z.date() })),
        tool('demo.a.big', z.object({}), z.object({ total: z.bigint() })),
        tool('demo.a.custom', z.object({}), z.custom<string>()),
      ],
    });
    expect(jsonSchemaProblems(plugin)).toEqual([
      {
        plugin: 'demo',
        tool: 'demo.a.date',
        field: 'inputSchema',
        message:
          'cannot be represented as JSON Schema (Date cannot be represented in JSON Schema); use a string, e.g. z.iso.datetime()',
      },
      {
        plugin: 'demo',
        tool: 'demo.a.big',
        field: 'outputSchema',
        message:
          'cannot be represented as JSON Schema (BigInt cannot be represented in JSON Schema); use a number or a string, e.g. z.number().int() or z.string()',
      },
      {
        plugin: 'demo',
        tool: 'demo.a.custom',
        field: 'outputSchema',
        message:
          'cannot be represented as JSON Schema (Custom types cannot be represented in JSON Schema)',
      },
    ]);
    expect(jsonSchemaProblems('not a plugin')).toEqual([]);
  });

  it('gets the refused definition from definePlugin(), without logging it', () => {
    const definition = { id: 'demo', name: 'Demo', description: '', tools: [] };
    const error = (() => {
      try {
        definePlugin(definition);
      } catch (caught) {
        return caught;
      }
    })();
    if (!PluginDefinitionError.isInstance(error))
      throw new Error('expected a PluginDefinitionError');
    expect(error.definition).toBe(definition);
    expect(Object.keys(error)).not.toContain('definition');
  });
});
