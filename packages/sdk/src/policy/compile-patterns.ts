import { PatternAutomaton } from './pattern-automaton.js';
import { describePatternProblem } from './role-schema.js';

/**
 * Answers whether tool paths are allowed by a set of patterns. Built by
 * {@link compilePatterns}; each answer costs time linear in the length of the path, whatever
 * the number of patterns.
 */
export interface PathMatcher {
  /**
   * Whether any pattern matches `path`. A path with an empty segment (`''`, `a..b`, `a.`), or
   * anything that is not a string, matches nothing. Never throws.
   *
   * @example
   * compilePatterns(['github.*.list']).matches('github.repos.list'); // true
   */
  matches(path: string): boolean;
  /**
   * The items whose path matches, in their original order. Never throws unless `pathOf` does.
   *
   * @example
   * compilePatterns(['github.**']).filter(tools, (tool) => tool.path);
   */
  filter<T>(items: readonly T[], pathOf: (item: T) => string): T[];
}

/** How many invalid patterns one error message lists. */
const MAX_LISTED_PROBLEMS = 20;

/**
 * Compiles tool-path patterns into a {@link PathMatcher}. A pattern matches a path when their
 * dot-separated segments align: a literal matches the same segment, `*` exactly one segment and
 * `**` one or more segments, anywhere in the pattern and any number of times. `**` alone matches
 * every tool; an empty list matches nothing.
 *
 * Compile once per role and reuse the matcher: patterns become a trie, run as an automaton that
 * is determinised lazily and memoised (within a bounded cache), so a lookup is one table read per
 * character of the path, never loops over patterns and never backtracks.
 *
 * @throws {Error} when a pattern is invalid (the rules of `patternSchema`); the message names
 * every invalid pattern and what is wrong with it.
 *
 * @example
 * const matcher = compilePatterns(['github.repos.*', 'linear.**']);
 * matcher.matches('github.repos.list'); // true
 * matcher.matches('github.issues.list'); // false
 * const visible = matcher.filter(tools, (tool) => tool.path);
 */
export function compilePatterns(patterns: readonly string[]): PathMatcher {
  assertValid(patterns);
  const automaton = new PatternAutomaton(patterns);
  const matches = (path: string): boolean => automaton.accepts(path);
  return {
    matches,
    filter: (items, pathOf) => items.filter((item) => matches(pathOf(item))),
  };
}

function assertValid(patterns: readonly string[]): void {
  const problems: string[] = [];
  for (const pattern of patterns) {
    // JavaScript callers can pass anything; the message must still say what was wrong.
    if (typeof pattern !== 'string') {
      problems.push(`${String(pattern)}: pattern must be a string`);
      continue;
    }
    const problem = describePatternProblem(pattern);
    if (problem !== undefined) problems.push(`${JSON.stringify(pattern)}: ${problem}`);
  }
  if (problems.length === 0) return;
  if (problems.length === 1) throw new Error(`Invalid tool-path pattern ${problems[0]}`);
  const listed = problems.slice(0, MAX_LISTED_PROBLEMS).map((problem) => `\n  - ${problem}`);
  const more =
    problems.length > MAX_LISTED_PROBLEMS
      ? `\n  ... and ${problems.length - MAX_LISTED_PROBLEMS} more`
      : '';
  throw new Error(`Invalid tool-path patterns (${problems.length}):${listed.join('')}${more}`);
}
