import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compilePatterns } from './compile-patterns.js';

/** The semantics, spelled out as plainly as possible; exponential on purpose-built input. */
function referenceMatches(pattern: readonly string[], path: readonly string[]): boolean {
  const [head, ...rest] = pattern;
  if (head === undefined) return path.length === 0;
  if (path.length === 0) return false;
  if (head === '**') {
    for (let taken = 1; taken <= path.length; taken++) {
      if (referenceMatches(rest, path.slice(taken))) return true;
    }
    return false;
  }
  return (head === '*' || head === path[0]) && referenceMatches(rest, path.slice(1));
}

function referenceAllows(patterns: readonly string[], path: string): boolean {
  const segments = path.split('.');
  if (segments.includes('')) return false;
  return patterns.some((pattern) => referenceMatches(pattern.split('.'), segments));
}

const matching = (patterns: string[], paths: string[]) => {
  const matcher = compilePatterns(patterns);
  return paths.filter((path) => matcher.matches(path));
};

describe('compilePatterns semantics', () => {
  it('matches a literal pattern only against the same path', () => {
    expect(
      matching(
        ['github.repos.list'],
        ['github.repos.list', 'github.repos', 'github.repos.lists', 'github.repos.list.all'],
      ),
    ).toEqual(['github.repos.list']);
  });

  it('lets `*` stand for exactly one segment', () => {
    expect(
      matching(
        ['github.*.list'],
        ['github.repos.list', 'github.issues.list', 'github.list', 'github.a.b.list'],
      ),
    ).toEqual(['github.repos.list', 'github.issues.list']);
    expect(matching(['github.*'], ['github.repos', 'github.repos.list'])).toEqual(['github.repos']);
  });

  it('lets `**` stand for one or more segments, never zero', () => {
    expect(
      matching(['github.**'], ['github', 'github.repos', 'github.repos.list', 'gitlab.repos']),
    ).toEqual(['github.repos', 'github.repos.list']);
  });

  it('accepts `**` in the middle of a pattern', () => {
    expect(
      matching(
        ['github.**.list'],
        ['github.list', 'github.repos.list', 'github.a.b.c.list', 'github.repos.list.x'],
      ),
    ).toEqual(['github.repos.list', 'github.a.b.c.list']);
  });

  it('accepts several `**` in one pattern', () => {
    expect(
      matching(
        ['**.repos.**'],
        ['github.repos.list', 'a.b.repos.c.d', 'repos.list', 'github.repos', 'a.repos.repos.b'],
      ),
    ).toEqual(['github.repos.list', 'a.b.repos.c.d', 'a.repos.repos.b']);
    expect(matching(['**.**'], ['a', 'a.b', 'a.b.c'])).toEqual(['a.b', 'a.b.c']);
  });

  it('matches every tool with `**` alone', () => {
    const paths = ['github.repos.list', 'a.b', 'x.y.z.w.v.u'];
    expect(matching(['**'], paths)).toEqual(paths);
  });

  it('matches nothing when no pattern fits', () => {
    expect(matching(['github.repos.*', 'linear.**'], ['gitlab.repos.list', 'jira.a.b'])).toEqual(
      [],
    );
  });

  it('matches nothing with an empty pattern list', () => {
    const matcher = compilePatterns([]);
    expect(matcher.matches('github.repos.list')).toBe(false);
    expect(matcher.filter(['a.b', 'c.d'], (path) => path)).toEqual([]);
  });

  it('allows a path when any one of several patterns matches', () => {
    expect(
      matching(
        ['github.repos.list', 'github.**.delete', 'linear.*.*'],
        ['github.repos.list', 'github.repos.delete', 'github.repos.get', 'linear.issues.get'],
      ),
    ).toEqual(['github.repos.list', 'github.repos.delete', 'linear.issues.get']);
  });

  it('matches nothing for a path with an empty segment, even under `**`', () => {
    expect(matching(['**', '*.*'], ['', '.', 'a..b', 'a.', '.a'])).toEqual([]);
  });

  it('stops at a trailing `**` only when the rest of the path is well formed', () => {
    expect(
      matching(['a.**'], ['a.b', 'a.b.c.d', 'a.b..c', 'a.b.', 'a..', 'a.bc.d.', 'b.c']),
    ).toEqual(['a.b', 'a.b.c.d']);
  });

  it('treats segments that name Object.prototype members as plain text', () => {
    expect(
      matching(['__proto__.x', 'constructor.*'], ['__proto__.x', 'constructor.y', 'toString.x']),
    ).toEqual(['__proto__.x', 'constructor.y']);
  });

  it('filters items by their path, keeping order and duplicates', () => {
    const tools = [
      { path: 'b.list', id: 1 },
      { path: 'a.list', id: 2 },
      { path: 'a.delete', id: 3 },
      { path: 'b.list', id: 4 },
    ];
    const matcher = compilePatterns(['*.list']);
    expect(matcher.filter(tools, (tool) => tool.path).map((tool) => tool.id)).toEqual([1, 2, 4]);
  });

  it('works when `matches` is passed around detached from the matcher', () => {
    const { matches } = compilePatterns(['a.*']);
    expect(['a.b', 'b.a'].filter(matches)).toEqual(['a.b']);
  });

  it('throws an error naming an invalid pattern', () => {
    expect(() => compilePatterns(['github.repos.*', 'GitHub.repos'])).toThrow(
      /Invalid tool-path pattern "GitHub\.repos": segment 1 \("GitHub"\) is not allowed/,
    );
    expect(() => compilePatterns(['a..b'])).toThrow(/"a\.\.b": segment 2 is empty/);
    expect(() => compilePatterns([''])).toThrow(/"": pattern is empty/);
    expect(() => compilePatterns(['a.***'])).toThrow(/"a\.\*\*\*"/);
  });

  it('names every invalid pattern in one error', () => {
    expect(() => compilePatterns(['a.*x', 'ok.*', 'b c'])).toThrow(
      /Invalid tool-path patterns \(2\):\n {2}- "a\.\*x": .*\n {2}- "b c": /,
    );
  });
});

describe('compilePatterns against a naive reference', () => {
  // A small alphabet so that generated patterns and paths actually meet.
  const pathSegment = fc.constantFrom('a', 'b', 'c', 'ab');
  const patternSegment = fc.oneof(
    { weight: 4, arbitrary: pathSegment },
    { weight: 2, arbitrary: fc.constant('*') },
    { weight: 2, arbitrary: fc.constant('**') },
    { weight: 1, arbitrary: fc.constant('zz') },
  );
  const pattern = fc
    .array(patternSegment, { minLength: 1, maxLength: 6 })
    .map((segments) => segments.join('.'));
  const path = fc
    .array(pathSegment, { minLength: 1, maxLength: 9 })
    .map((segments) => segments.join('.'));

  it('agrees with the reference on every path', () => {
    fc.assert(
      fc.property(
        fc.array(pattern, { maxLength: 8 }),
        fc.array(path, { minLength: 1, maxLength: 30 }),
        (patterns, paths) => {
          const matcher = compilePatterns(patterns);
          for (const candidate of paths) {
            expect(matcher.matches(candidate)).toBe(referenceAllows(patterns, candidate));
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('filters exactly the paths the reference allows, in order', () => {
    fc.assert(
      fc.property(
        fc.array(pattern, { maxLength: 8 }),
        fc.array(path, { maxLength: 30 }),
        (patterns, paths) => {
          const expected = paths.filter((candidate) => referenceAllows(patterns, candidate));
          expect(compilePatterns(patterns).filter(paths, (candidate) => candidate)).toEqual(
            expected,
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('agrees with the reference on malformed paths and characters no pattern names', () => {
    const oddSegment = fc.constantFrom('a', 'ab', '', 'B', 'é', '-', 'a-b');
    const oddPath = fc
      .array(oddSegment, { minLength: 1, maxLength: 6 })
      .map((segments) => segments.join('.'));
    fc.assert(
      fc.property(
        fc.array(pattern, { maxLength: 6 }),
        fc.array(oddPath, { minLength: 1, maxLength: 20 }),
        (patterns, paths) => {
          const matcher = compilePatterns(patterns);
          for (const candidate of paths) {
            expect(matcher.matches(candidate)).toBe(referenceAllows(patterns, candidate));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('gives the same answer whatever the order of patterns', () => {
    fc.assert(
      fc.property(
        fc.array(pattern, { maxLength: 8 }),
        fc.array(path, { minLength: 1, maxLength: 20 }),
        (patterns, paths) => {
          const forward = compilePatterns(patterns);
          const backward = compilePatterns([...patterns].reverse());
          for (const candidate of paths) {
            expect(backward.matches(candidate)).toBe(forward.matches(candidate));
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('compilePatterns on adversarial input', () => {
  const longPath = (last: string) => [...Array.from({ length: 39 }, () => 'a'), last].join('.');

  it('answers stacked `**` patterns against long paths', () => {
    const matcher = compilePatterns(['**.**.**.**.**.**.**.**.**.x']);
    expect(matcher.matches(longPath('y'))).toBe(false);
    expect(matcher.matches(longPath('x'))).toBe(true);
    expect(matcher.matches('a.a.a.a.a.a.a.a.x')).toBe(false);
    expect(matcher.matches('a.a.a.a.a.a.a.a.a.x')).toBe(true);
  });

  it('answers interleaved `**` and literals against long paths', () => {
    const matcher = compilePatterns(['**.a.**.a.**.a.**.a.**.a.**.b', '*.*.*.**.a.*.*.**.c']);
    expect(matcher.matches(longPath('a'))).toBe(false);
    expect(matcher.matches(longPath('b'))).toBe(true);
    expect(matcher.matches(longPath('c'))).toBe(true);
  });

  it('answers many long paths against 1000 overlapping patterns', () => {
    const patterns = Array.from({ length: 1000 }, (_, index) =>
      ['**', ...Array.from({ length: index % 10 }, () => '*'), `s${index}`, '**'].join('.'),
    );
    const matcher = compilePatterns(patterns);
    expect(matcher.matches(longPath('a'))).toBe(false);
    expect(matcher.matches(`${longPath('a')}.s999.b`)).toBe(true);
    expect(matcher.matches(`s999.${longPath('a')}`)).toBe(false);
  });

  // `**.a` followed by n `*` needs 2^n deterministic states: enough to outgrow the memo bound, so
  // this checks that dropping the cache mid-run keeps answers right.
  it('stays correct when the automaton outgrows its memo bound', () => {
    const pattern = ['**', 'a', ...Array.from({ length: 20 }, () => '*')].join('.');
    const matcher = compilePatterns([pattern]);
    let seed = 42;
    const nextBit = () => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed & 0x100) !== 0;
    };
    for (let run = 0; run < 2000; run++) {
      const segments = Array.from({ length: 40 }, () => (nextBit() ? 'a' : 'b'));
      expect(matcher.matches(segments.join('.'))).toBe(segments.at(-21) === 'a');
    }
  });
});
