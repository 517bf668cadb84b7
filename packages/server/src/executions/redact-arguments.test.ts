import { describe, expect, it } from 'vitest';
import { generateToken } from '../secrets/index.js';
import { isSensitiveKey, redactArguments, redactError } from './redact-arguments.js';

describe('redactArguments', () => {
  it('hides values of fields named like secrets, however they are spelled', () => {
    expect(
      redactArguments({
        secret: 'a',
        client_secret: 'b',
        accessToken: 'c',
        password: 'd',
        apiKey: 'e',
        key: 'f',
        Authorization: 'g',
        nested: { refresh_token: 'h', list: [{ passphrase: 'i' }] },
      }),
    ).toEqual({
      secret: '[redacted]',
      client_secret: '[redacted]',
      accessToken: '[redacted]',
      password: '[redacted]',
      apiKey: '[redacted]',
      key: '[redacted]',
      Authorization: '[redacted]',
      nested: { refresh_token: '[redacted]', list: [{ passphrase: '[redacted]' }] },
    });
  });

  it('keeps ordinary fields, including words that merely contain "key"', () => {
    const input = { keyboard: 'qwerty', monkey: 'george', title: 'Hello', count: 3, done: false };
    expect(redactArguments(input)).toEqual(input);
    expect(isSensitiveKey('keyboard')).toBe(false);
    expect(isSensitiveKey('sshKey')).toBe(true);
  });

  // Issue 31: a relayed sampling request's maxTokens was recorded as [redacted].
  it('keeps counts of model tokens, but not a token named in the plural that is text', () => {
    expect(
      redactArguments({ maxTokens: 200, max_tokens: 5, temperature: 0.2, totalTokens: 7 }),
    ).toEqual({ maxTokens: 200, max_tokens: 5, temperature: 0.2, totalTokens: 7 });
    expect(redactArguments({ tokens: 'abc def', token: 12345, apiTokens: ['x'] })).toEqual({
      tokens: '[redacted]',
      token: '[redacted]',
      apiTokens: '[redacted]',
    });
  });

  it('hides values that look like tokens wherever they are', () => {
    expect(
      redactArguments({
        note: 'gw_mcp_0123456789abcdefghijABCDEFGHIJ0123456789',
        header: 'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijklmnop',
        items: ['ghp_0123456789abcdefghijklmnopqrstuvwxyz', 'plain'],
        id: '3f2504e0-4f89-11d3-9a0c-0305e82c3301',
      }),
    ).toEqual({
      note: '[redacted]',
      header: '[redacted]',
      items: ['[redacted]', 'plain'],
      id: '3f2504e0-4f89-11d3-9a0c-0305e82c3301',
    });
  });

  it('cuts long strings and arrays short', () => {
    const out = redactArguments({
      text: 'a b '.repeat(1000),
      list: Array.from({ length: 150 }, () => 1),
    });
    expect(JSON.stringify(out).length).toBeLessThan(2000);
  });
});

describe('isSensitiveKey', () => {
  it('answers the same for a name asked again, however many names came between', () => {
    const names = Array.from({ length: 2500 }, (_, at) =>
      at % 3 === 0 ? `ssh_key_${at}` : at % 3 === 1 ? `monkey${at}` : `x${'y'.repeat(at % 90)}Key`,
    );
    const first = names.map((name) => isSensitiveKey(name));
    expect(first.filter(Boolean).length).toBeGreaterThan(800);
    expect(first.some((sensitive) => !sensitive)).toBe(true);
    for (let round = 0; round < 2; round += 1) {
      expect(names.map((name) => isSensitiveKey(name))).toEqual(first);
    }
  });
});

describe('redactError', () => {
  it('masks argument values the record hides, so an error cannot repeat them (issue 14)', () => {
    const token = generateToken('cli');
    const args = { provider: 'github', apiKey: 'plain-long-key-value', nested: { t: token } };
    expect(redactArguments(args)).toEqual({
      provider: 'github',
      apiKey: '[redacted]',
      nested: { t: '[redacted]' },
    });
    expect(redactError('No credential for plain-long-key-value', args)).toBe(
      'No credential for [redacted]',
    );
    expect(redactError(`bad ${token} here`, args)).toBe('bad [redacted] here');
    expect(redactError('No credential for github', args)).toBe('No credential for github');
  });
});
