import type { SchemaIssue } from './schema-issue.js';
import type { InputSchema } from './types.js';

const NO_ISSUES: readonly SchemaIssue[] = Object.freeze([]);

/**
 * The argument names a tool's input schema accepts, when it accepts no others: a plain
 * `z.object()` (whose default is to drop unknown keys silently, so a misspelled argument would
 * vanish and the tool run without it) or `z.strictObject()`. `undefined` when the schema says it
 * takes extra keys: `z.looseObject()`, `.passthrough()`, `.catchall(...)`, or
 * `.meta({ additionalProperties: ... })`. Read from the schema's definition, so a plugin's own
 * copy of zod answers the same.
 *
 * @example
 * acceptedInputKeys(z.object({ title: z.string() })); // Set { 'title' }
 * acceptedInputKeys(z.looseObject({ title: z.string() })); // undefined
 */
export function acceptedInputKeys(schema: InputSchema): ReadonlySet<string> | undefined {
  const catchall = schema._zod.def.catchall;
  if (catchall !== undefined && catchall._zod.def.type !== 'never') return undefined;
  const meta: unknown = typeof schema.meta === 'function' ? schema.meta() : undefined;
  if (typeof meta === 'object' && meta !== null && 'additionalProperties' in meta) {
    if (meta.additionalProperties !== false) return undefined;
  }
  return new Set(Object.keys(schema.shape));
}

/**
 * One issue per key of `input` that is not in `accepted`, naming the key and the arguments the
 * tool takes, so a client (or a model) can correct its call. Allocates nothing when every key is
 * known: it runs on every tool call.
 *
 * @example
 * unknownKeyIssues({ text: 'hi' }, new Set(['title', 'body']));
 * // [{ path: ['text'], message: 'unknown argument (the arguments are: title, body)' }]
 */
export function unknownKeyIssues(
  input: unknown,
  accepted: ReadonlySet<string>,
): readonly SchemaIssue[] {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return NO_ISSUES;
  let issues: SchemaIssue[] | undefined;
  for (const key in input) {
    if (accepted.has(key) || !Object.hasOwn(input, key)) continue;
    issues ??= [];
    issues.push({ path: [key], message: unknownArgumentMessage(accepted) });
  }
  return issues ?? NO_ISSUES;
}

/**
 * Joins a schema's own issues with {@link unknownKeyIssues}, leaving out zod's own "Unrecognized
 * key" issue (a strict schema's), which would name the same keys twice.
 */
export function withUnknownKeyIssues(
  schemaIssues: readonly SchemaIssue[],
  unknown: readonly SchemaIssue[],
): readonly SchemaIssue[] {
  if (unknown.length === 0) return schemaIssues;
  const rest = schemaIssues.filter(
    (issue) => !(issue.path.length === 0 && 'code' in issue && issue.code === 'unrecognized_keys'),
  );
  return [...unknown, ...rest];
}

function unknownArgumentMessage(accepted: ReadonlySet<string>): string {
  return accepted.size === 0
    ? 'unknown argument (the tool takes no arguments)'
    : `unknown argument (the arguments are: ${[...accepted].join(', ')})`;
}
