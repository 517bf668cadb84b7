import { describe, expect, it } from 'vitest';
import { isValidPattern, patternSchema, roleSchema } from './role-schema.js';

const validRole = { id: 'support', name: 'Support', patterns: ['zendesk.**', 'github.issues.*'] };

function issuesOf(input: unknown): { path: string; message: string }[] {
  const result = roleSchema.safeParse(input);
  if (result.success) return [];
  return result.error.issues.map((issue) => ({
    path: issue.path.map(String).join('.'),
    message: issue.message,
  }));
}

describe('roleSchema', () => {
  it('accepts a valid role', () => {
    expect(roleSchema.parse(validRole)).toEqual(validRole);
  });

  it('accepts the edges of every rule', () => {
    const role = {
      id: `a${'b'.repeat(63)}`,
      name: 'N'.repeat(100),
      patterns: Array.from({ length: 1000 }, (_, index) => `ns${index}.**`),
    };
    expect(roleSchema.safeParse(role).success).toBe(true);
    expect(roleSchema.safeParse({ id: 'a', name: 'A', patterns: [] }).success).toBe(true);
    expect(roleSchema.safeParse({ id: 'a-b_9', name: 'A', patterns: ['**'] }).success).toBe(true);
  });

  it('trims the name', () => {
    expect(roleSchema.parse({ ...validRole, name: '  Support  ' }).name).toBe('Support');
  });

  it.each([
    ['starting with a digit', '1admin'],
    ['starting with a dash', '-admin'],
    ['in upper case', 'Admin'],
    ['empty', ''],
    ['longer than 64 characters', `a${'b'.repeat(64)}`],
    ['holding a dot', 'a.b'],
  ])('rejects an id %s', (_, id) => {
    expect(issuesOf({ ...validRole, id })).toEqual([
      { path: 'id', message: expect.stringContaining('id starts with a lowercase letter') },
    ]);
  });

  it('rejects an empty or blank name', () => {
    expect(issuesOf({ ...validRole, name: '' })).toEqual([
      { path: 'name', message: 'name must not be empty' },
    ]);
    expect(issuesOf({ ...validRole, name: '   ' })).toEqual([
      { path: 'name', message: 'name must not be empty' },
    ]);
  });

  it('rejects a name over 100 characters', () => {
    expect(issuesOf({ ...validRole, name: 'N'.repeat(101) })).toEqual([
      { path: 'name', message: 'name is at most 100 characters' },
    ]);
  });

  it('rejects 1001 patterns', () => {
    const patterns = Array.from({ length: 1001 }, (_, index) => `ns${index}.**`);
    expect(issuesOf({ ...validRole, patterns })).toEqual([
      { path: 'patterns', message: 'a role holds at most 1000 patterns' },
    ]);
  });

  it('rejects an invalid pattern, naming its index and segment', () => {
    expect(issuesOf({ ...validRole, patterns: ['ok.*', 'GitHub.repos'] })).toEqual([
      {
        path: 'patterns.1',
        message:
          'segment 1 ("GitHub") is not allowed; pattern segments are lowercase letters, digits, _ or -, `*` or `**`',
      },
    ]);
  });

  it('rejects unknown fields', () => {
    const issues = roleSchema.safeParse({ ...validRole, admin: true });
    expect(issues.success).toBe(false);
    expect(issues.error?.issues).toEqual([
      expect.objectContaining({ code: 'unrecognized_keys', keys: ['admin'] }),
    ]);
  });

  it('rejects missing fields and wrong types, reporting every problem at once', () => {
    expect(issuesOf({ id: 7, patterns: 'github.**' })).toEqual([
      { path: 'id', message: 'id must be a string' },
      { path: 'name', message: 'name must be a string' },
      { path: 'patterns', message: 'patterns must be an array of strings' },
    ]);
  });
});

describe('patternSchema and isValidPattern', () => {
  it.each([
    'github.repos.list',
    'github.*',
    'github.*.list',
    'github.**',
    '**',
    '*',
    '**.list',
    'a.**.b.**.c',
    'my-plugin.do_it.v2',
    'a',
  ])('accepts %j', (pattern) => {
    expect(patternSchema.safeParse(pattern).success).toBe(true);
    expect(isValidPattern(pattern)).toBe(true);
  });

  it.each([
    ['', /pattern is empty/],
    ['a..b', /segment 2 is empty/],
    ['.a', /segment 1 is empty/],
    ['a.', /segment 2 is empty/],
    ['GitHub.repos', /segment 1 \("GitHub"\) is not allowed/],
    ['a.***', /segment 2 \("\*\*\*"\) is not allowed/],
    ['a.*b', /segment 2 \("\*b"\) is not allowed/],
    ['a b', /segment 1 \("a b"\) is not allowed/],
    ['a.b/c', /segment 2 \("b\/c"\) is not allowed/],
    [`a.${'b'.repeat(300)}`, /longer than 256 characters/],
  ])('rejects %j', (pattern, message) => {
    const result = patternSchema.safeParse(pattern);
    expect(result.success).toBe(false);
    expect(result.error?.issues).toHaveLength(1);
    expect(result.error?.issues[0]?.message).toMatch(message);
    expect(isValidPattern(pattern)).toBe(false);
  });

  it('treats anything that is not a string as invalid', () => {
    expect(isValidPattern(42)).toBe(false);
    expect(isValidPattern(undefined)).toBe(false);
    expect(patternSchema.safeParse(['a', 'b']).error?.issues[0]?.message).toBe(
      'pattern must be a string',
    );
  });
});
