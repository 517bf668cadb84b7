/** A JSON Schema document (as `MountedTool`'s). */
type JsonSchema = { [key: string]: unknown };

/** Keys whose values are data, not schemas: never walked. */
const DATA_KEYS = new Set(['default', 'const', 'enum', 'examples']);

/**
 * `schema` without the bounds zod writes on every `z.number().int()`: `minimum:
 * -9007199254740991` and `maximum: 9007199254740991` (±`Number.MAX_SAFE_INTEGER`) on an
 * `integer`. They are not the author's, only JavaScript's safe-integer range, and 55 bytes of a
 * tool's ~450 in a `tools/list` answer (issue 33); the tool's zod schema still refuses an integer
 * past them. A bound the author set (`.min(1)`) is kept. Returns a copy; `schema` is not changed.
 *
 * @example
 * withoutSafeIntegerBounds({ type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
 * // { type: 'integer', minimum: 1 }
 */
export function withoutSafeIntegerBounds(schema: JsonSchema): JsonSchema {
  return walk(schema) as JsonSchema;
}

function walk(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(walk);
  if (typeof value !== 'object' || value === null) return value;
  const node = value as Record<string, unknown>;
  const integer =
    node.type === 'integer' || (Array.isArray(node.type) && node.type.includes('integer'));
  const copy: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(node)) {
    if (integer && key === 'minimum' && child === -Number.MAX_SAFE_INTEGER) continue;
    if (integer && key === 'maximum' && child === Number.MAX_SAFE_INTEGER) continue;
    copy[key] = DATA_KEYS.has(key) ? child : walk(child);
  }
  return copy;
}
