import { describe, expect, it } from 'vitest';
import { nestedDeeperThan, nestsWithin } from './nesting.js';

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

// Issue 37: the text bounds the depth before any walk; a text it cannot bound is walked.
describe('nestsWithin', () => {
  it('holds for a text with at most that many brackets, whatever they open', () => {
    expect(nestsWithin(JSON.stringify(nested(100)), 100)).toBe(true);
    expect(nestsWithin(JSON.stringify(nested(101)), 100)).toBe(false);
    expect(nestsWithin('{"a":[1,{"b":[]}],"c":{}}', 5)).toBe(true);
    expect(nestsWithin('{"a":[1,{"b":[]}],"c":{}}', 4)).toBe(false);
    expect(nestsWithin('"no brackets"', 0)).toBe(true);
  });

  it('counts brackets inside strings too, so a shallow text with many is left to the walk', () => {
    const text = JSON.stringify({ text: '{['.repeat(60) });
    expect(nestsWithin(text, 100)).toBe(false);
    expect(nestedDeeperThan(JSON.parse(text), 100)).toBe(false);
  });

  it('never holds for a text that nests deeper, with or without other brackets', () => {
    for (const depth of [2, 7, 100, 101, 150]) {
      const value = { before: [{}, []], deep: nested(depth), after: '}]' };
      const text = JSON.stringify(value);
      if (nestedDeeperThan(value, 100)) expect(nestsWithin(text, 100)).toBe(false);
      expect(nestsWithin(text, depth)).toBe(false);
    }
  });
});
