import { compilePatterns } from '@gateway/sdk/kernel';

/** The first of `patterns` that matches `path`, or null. */
export function firstMatch(patterns: readonly string[], path: string): string | null {
  for (const pattern of patterns) {
    try {
      if (compilePatterns([pattern]).filter([path], (item) => item).length > 0) return pattern;
    } catch {
      // An invalid stored pattern matches nothing, as in the policy.
    }
  }
  return null;
}
