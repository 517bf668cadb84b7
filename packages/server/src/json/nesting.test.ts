import { describe, expect, it } from 'vitest';
import { nestedDeeperThan } from './nesting.js';

/** `depth` levels of `[`/`{` alternating, innermost empty. */
function nested(depth: number): unknown {
  let value: unknown = depth % 2 === 0 ? {} : [];
  for (let level = depth - 1; level > 0; level--) value = level % 2 === 0 ? { a: value } : [value];
  return value;
}

describe('nestedDeeperThan', () => {
  it('counts objects and arrays alike, and nothing else', () => {
    expect(nestedDeeperThan(nested(100), 100)).toBe(false);
    expect(nestedDeeperThan(nested(101), 100)).toBe(true);
    expect(nestedDeeperThan('[[[]]]', 1)).toBe(false);
    expect(nestedDeeperThan(null, 0)).toBe(false);
    expect(nestedDeeperThan({}, 0)).toBe(true);
  });

  it('finds the deep branch among shallow ones, past a key named __proto__', () => {
    const deep = JSON.parse(
      `{"a":[1,{"b":null}],"__proto__":{"c":${JSON.stringify(nested(5))}},"d":"x"}`,
    );
    // The object, `__proto__`'s object, then five levels.
    expect(nestedDeeperThan(deep, 7)).toBe(false);
    expect(nestedDeeperThan(deep, 6)).toBe(true);
  });

  it('walks a document far deeper than the stack allows', () => {
    expect(nestedDeeperThan(JSON.parse(`${'['.repeat(200_000)}${']'.repeat(200_000)}`), 100)).toBe(
      true,
    );
  });
});
