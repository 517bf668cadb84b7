import { z } from 'zod';

/**
 * Longest pattern accepted. Real tool paths are a few dozen characters; the bound keeps a role
 * body of 1000 patterns small and the compiled matcher's automaton of a sane size.
 */
export const MAX_PATTERN_LENGTH = 256;

/** Most patterns one role may hold. */
export const MAX_PATTERNS_PER_ROLE = 1000;

const ROLE_ID = /^[a-z][a-z0-9_-]{0,63}$/;
const ROLE_ID_RULE =
  'id starts with a lowercase letter, followed by at most 63 lowercase letters, digits, _ or -';
const SEGMENTS_RULE = 'pattern segments are lowercase letters, digits, _ or -, `*` or `**`';
const LITERAL_SEGMENT = /^[a-z0-9_-]+$/;
// Unambiguous (segments are split by a literal dot), so it cannot backtrack badly.
const PATTERN = /^(?:\*\*?|[a-z0-9_-]+)(?:\.(?:\*\*?|[a-z0-9_-]+))*$/;

/**
 * Says what is wrong with `pattern`, or returns `undefined` when it is valid. Shared by
 * `patternSchema` and `compilePatterns()` so both reject the same inputs with the same words.
 */
export function describePatternProblem(pattern: string): string | undefined {
  if (pattern.length === 0) return 'pattern is empty (use `**` to match every tool)';
  if (pattern.length > MAX_PATTERN_LENGTH) {
    return `pattern is longer than ${MAX_PATTERN_LENGTH} characters`;
  }
  if (PATTERN.test(pattern)) return undefined;
  const segments = pattern.split('.');
  for (const [index, segment] of segments.entries()) {
    if (segment === '') return `segment ${index + 1} is empty; ${SEGMENTS_RULE}`;
    if (segment !== '*' && segment !== '**' && !LITERAL_SEGMENT.test(segment)) {
      return `segment ${index + 1} ("${segment}") is not allowed; ${SEGMENTS_RULE}`;
    }
  }
  return SEGMENTS_RULE;
}

/**
 * Whether `pattern` is a valid tool-path pattern: dot-separated segments, each a literal
 * `[a-z0-9_-]+`, `*` (exactly one segment) or `**` (one or more segments), at most
 * {@link MAX_PATTERN_LENGTH} characters. Never throws; anything that is not a string is invalid.
 *
 * @example
 * isValidPattern('github.repos.*'); // true
 * isValidPattern('github..list'); // false
 */
export function isValidPattern(pattern: unknown): pattern is string {
  return (
    typeof pattern === 'string' && pattern.length <= MAX_PATTERN_LENGTH && PATTERN.test(pattern)
  );
}

const patternIssue = (issue: { input?: unknown }) =>
  typeof issue.input === 'string' ? describePatternProblem(issue.input) : undefined;

/**
 * zod schema of one tool-path pattern, e.g. `github.repos.list`, `github.*.list`, `github.**`
 * or `**`. Its `pattern` and `maxLength` carry over to the generated JSON Schema.
 *
 * Parsing throws a `ZodError` (`parse`) or reports issues (`safeParse`) whose message names the
 * offending segment.
 *
 * @example
 * patternSchema.parse('github.**'); // 'github.**'
 * patternSchema.safeParse('GitHub.repos').success; // false
 */
export const patternSchema = z
  .string({ error: 'pattern must be a string' })
  .min(1, { error: patternIssue, abort: true })
  .max(MAX_PATTERN_LENGTH, { error: patternIssue, abort: true })
  .regex(PATTERN, { error: patternIssue });

/**
 * zod schema of a role: `{ id, name, patterns }`, unknown fields rejected. `id` matches
 * `^[a-z][a-z0-9_-]{0,63}$`; `name` is trimmed and 1..100 characters; `patterns` holds at most
 * 1000 valid patterns (see {@link patternSchema}). Shared by the server's `/api/policy/roles`
 * routes and the CLI's `gateway roles`.
 *
 * Parsing throws a `ZodError` (`parse`) or reports issues (`safeParse`), one per problem.
 *
 * @example
 * const role = roleSchema.parse({
 *   id: 'support',
 *   name: 'Support',
 *   patterns: ['zendesk.**', 'github.issues.*'],
 * });
 */
export const roleSchema = z
  .object({
    id: z.string({ error: 'id must be a string' }).regex(ROLE_ID, { error: ROLE_ID_RULE }),
    name: z
      .string({ error: 'name must be a string' })
      .trim()
      .min(1, { error: 'name must not be empty' })
      .max(100, { error: 'name is at most 100 characters' }),
    patterns: z
      .array(patternSchema, { error: 'patterns must be an array of strings' })
      .max(MAX_PATTERNS_PER_ROLE, {
        error: `a role holds at most ${MAX_PATTERNS_PER_ROLE} patterns`,
      }),
  })
  .strict();

/**
 * A role as parsed by {@link roleSchema}: which tool paths its holders may see and call.
 *
 * @example
 * const admin: Role = { id: 'admin', name: 'Admin', patterns: ['**'] };
 */
export type Role = z.infer<typeof roleSchema>;
