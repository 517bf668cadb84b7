import { describe, expect, it } from 'vitest';
import { maskSecret } from './mask.js';

describe('maskSecret', () => {
  it('shows eight mask characters and the last four of a long secret', () => {
    expect(maskSecret('sk-live-abcdef123456')).toBe('••••••••3456');
  });

  it('does not reveal the length of a long secret', () => {
    expect(maskSecret(`${'x'.repeat(12)}abcd`)).toBe('••••••••abcd');
    expect(maskSecret(`${'x'.repeat(200)}abcd`)).toBe('••••••••abcd');
  });

  it('reveals the last four from five characters on', () => {
    expect(maskSecret('abcdefgh1234')).toBe('••••••••1234');
    expect(maskSecret('abcde')).toBe('••••••••bcde');
  });

  it.each([
    ['4 characters', 'abcd'],
    ['1 character', 'a'],
    ['the empty string', ''],
  ])('masks %s completely', (_, secret) => {
    expect(maskSecret(secret)).toBe('••••••••');
  });

  it('counts unicode code points, never splitting a surrogate pair', () => {
    expect(maskSecret('秘密のキーです🔑🔐🗝️ab')).toBe('••••••••🗝️ab');
    expect(maskSecret('0123456789ab🔑🔐🔑🔐')).toBe('••••••••🔑🔐🔑🔐');
    expect(maskSecret('🔑🔐🗝')).toBe('••••••••');
    expect(maskSecret('🔑🔐🗝🔑🔐')).toBe('••••••••🔐🗝🔑🔐');
  });
});
