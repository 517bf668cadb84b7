import { z } from 'zod';
import type { PluginProblem } from '../errors/plugin-definition-error.js';

/** A JSON Schema document, as generated from a tool's zod schema. */
export type JsonSchema = { [key: string]: unknown };

/** What {@link toolJsonSchema} gives: the JSON Schema, or why the schema has none. */
export type JsonSchemaResult = { schema: JsonSchema } | { reason: string };

/**
 * The JSON Schema MCP clients see for a tool's `inputSchema` (`io: 'input'`, what a caller sends)
 * or `outputSchema` (`io: 'output'`, the structured result). The gateway builds its tool list
 * with this when a plugin is mounted, and `gateway test` runs it on every schema, so both refuse
 * the same schemas (e.g. `z.date()`, `z.bigint()`, a transform in an output).
 *
 * @example
 * toolJsonSchema(z.object({ at: z.date() }), 'input');
 * // { reason: 'Date cannot be represented in JSON Schema' }
 */
export function toolJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchemaResult {
  try {
    return { schema: z.toJSONSchema(schema, { io }) as JsonSchema };
  } catch (error) {
    return { reason: error instanceof Error ? error.message : String(error) };
  }
}

/** The one-line message of a schema {@link toolJsonSchema} cannot convert. */
export function unrepresentableSchemaMessage(reason: string): string {
  const hint = HINTS.find(([pattern]) => pattern.test(reason))?.[1];
  return `cannot be represented as JSON Schema (${reason})${hint === undefined ? '' : `; ${hint}`}`;
}

// What to write instead, for the schemas authors reach for most.
const HINTS: readonly (readonly [RegExp, string])[] = [
  [/^Date /, 'use a string, e.g. z.iso.datetime()'],
  [/^BigInt /, 'use a number or a string, e.g. z.number().int() or z.string()'],
  [/^Transforms /, 'declare the value the handler returns, without .transform()'],
];

/**
 * Every `inputSchema` and `outputSchema` of `definition`'s tools that JSON Schema cannot express,
 * as problems naming the tool and field: what mounting the plugin in the gateway would refuse.
 * Accepts anything; tools or schemas that are not zod schemas are left to `validatePlugin()`.
 *
 * @example
 * jsonSchemaProblems(plugin);
 * // [{ plugin: 'demo', tool: 'demo.items.get', field: 'outputSchema', message: 'cannot be represented as JSON Schema (Date ...' }]
 */
export function jsonSchemaProblems(definition: unknown): PluginProblem[] {
  if (!isRecord(definition) || !Array.isArray(definition.tools)) return [];
  const plugin =
    typeof definition.id === 'string' && definition.id !== '' ? definition.id : '<unnamed>';
  const problems: PluginProblem[] = [];
  for (const [index, tool] of (definition.tools as unknown[]).entries()) {
    if (!isRecord(tool)) continue;
    const name = typeof tool.path === 'string' && tool.path !== '' ? tool.path : `tools[${index}]`;
    for (const [field, io] of [
      ['inputSchema', 'input'],
      ['outputSchema', 'output'],
    ] as const) {
      const schema = tool[field];
      if (!isRecord(schema) || !isRecord(schema._zod)) continue;
      const result = toolJsonSchema(schema as unknown as z.ZodType, io);
      if ('reason' in result) {
        problems.push({
          plugin,
          tool: name,
          field,
          message: unrepresentableSchemaMessage(result.reason),
        });
      }
    }
  }
  return problems;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
