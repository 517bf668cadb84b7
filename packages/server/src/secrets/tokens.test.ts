import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateToken, hashToken, looksLikeToken, maskToken, safeEqual } from './tokens.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

describe('generateToken', () => {
  it.each(['mcp', 'cli', 'sa'] as const)('makes gw_%s_ and 40 base62 characters', (kind) => {
    expect(generateToken(kind)).toMatch(new RegExp(`^gw_${kind}_[A-Za-z0-9]{40}$`));
  });

  it('never repeats over 10,000 tokens', () => {
    const tokens = new Set(Array.from({ length: 10_000 }, () => generateToken('mcp')));
    expect(tokens.size).toBe(10_000);
  });

  it('draws every base62 character about equally often', () => {
    const counts = new Map<string, number>();
    const tokens = 3_000;
    for (let i = 0; i < tokens; i++) {
      for (const char of generateToken('cli').slice('gw_cli_'.length)) {
        counts.set(char, (counts.get(char) ?? 0) + 1);
      }
    }
    expect([...counts.keys()].sort().join('')).toBe([...BASE62].sort().join(''));

    // Chi-square over 62 buckets (61 degrees of freedom). A modulo-biased generator favours the
    // first eight characters by 25% and lands in the thousands here; a fair one averages 61 and
    // exceeds 130 with probability below one in a million.
    const expected = (tokens * 40) / BASE62.length;
    let chiSquare = 0;
    for (const count of counts.values()) chiSquare += (count - expected) ** 2 / expected;
    expect(chiSquare).toBeLessThan(130);
  });
});

describe('hashToken', () => {
  it('is the stable hex SHA-256 of the token', () => {
    const token = 'gw_mcp_abcdefghijklmnopqrstuvwxyz0123456789ABCD';
    expect(hashToken(token)).toBe(createHash('sha256').update(token).digest('hex'));
    expect(hashToken(token)).toBe(hashToken(token));
    expect(hashToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashToken(`${token}x`)).not.toBe(hashToken(token));
  });

  it('matches a known vector', () => {
    expect(hashToken('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });
});

describe('maskToken', () => {
  it('keeps the prefix and the last four characters', () => {
    expect(maskToken('gw_mcp_0123456789ABCDEFGHIJabcdefghij0123abcd')).toBe('gw_mcp_••••••••abcd');
    expect(maskToken('gw_sa_0123456789ABCDEFGHIJabcdefghij0123wxyz')).toBe('gw_sa_••••••••wxyz');
  });

  it('masks a freshly generated token', () => {
    const token = generateToken('cli');
    expect(maskToken(token)).toBe(`gw_cli_••••••••${token.slice(-4)}`);
  });

  it('masks anything else like a secret', () => {
    expect(maskToken('not-a-gateway-token-1234')).toBe('••••••••1234');
    expect(maskToken('shrt')).toBe('••••••••');
  });
});

describe('safeEqual', () => {
  it('compares strings', () => {
    expect(safeEqual('secret-value', 'secret-value')).toBe(true);
    expect(safeEqual('secret-value', 'secret-valuf')).toBe(false);
    expect(safeEqual('secret-value', 'secret-value-longer')).toBe(false);
    expect(safeEqual('', '')).toBe(true);
    expect(safeEqual('', 'x')).toBe(false);
    expect(safeEqual('é', 'e\u0301')).toBe(false);
  });
});

describe('looksLikeToken', () => {
  it.each([
    generateToken('mcp'),
    generateToken('cli'),
    generateToken('sa'),
    `Bearer ${generateToken('cli')}`,
    'sk-proj-abcdefghijklmnopqrstuvwxyz012345',
    'sk-ant-api03-abcdefghijklmnopqrstuvwxyz',
    'sk_live_abcdefghijklmnop1234',
    'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
    'github_pat_11ABCDEFG0abcdefghijklmnopqrstuvwxyz',
    'glpat-abcdefghijklmnopqrst',
    'xoxb-123456789012-abcdefghijkl',
    'AKIAIOSFODNN7EXAMPLE',
    'AIzaSyA-abcdefghijklmnopqrstuvwxyz01234',
    'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl',
    // The shortest value any shape matches: short values are ruled out by length first.
    'eyJa.b.',
    `${'a'.repeat(16)}0123456789abcdef`,
    createHash('sha256').update('x').digest('hex'),
    createHash('sha256').update('x').digest('base64'),
    'dGhpcyBpcyBhIHZlcnkgbG9uZyBzZWNyZXQga2V5IDEyMw==',
  ])('flags %s', (value) => {
    expect(looksLikeToken(value)).toBe(true);
  });

  it.each([
    '',
    'eyJa.b',
    'hello',
    'github',
    'gw_mcp_short',
    'hello world this is a long sentence of text',
    'Internationalization-Localization-Globalization',
    '123e4567-e89b-12d3-a456-426614174000',
    'acme.items.delete',
    'sk-short',
    '0123456789abcdef',
  ])('leaves %j alone', (value) => {
    expect(looksLikeToken(value)).toBe(false);
  });
});
