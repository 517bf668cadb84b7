import { describe, expect, it } from 'vitest';
import { REDACTED, Redactor } from './redact.js';

describe('Redactor', () => {
  const secret = 's3cr3t-value-of-the-server';
  const redactor = new Redactor([secret, undefined, 'short']);

  it('leaves text without secrets or tokens as it is', () => {
    const text = 'POST /mcp 200 in 1.25 ms for 0b7c2a4e-1f3d-4c5e-9a8b-7c6d5e4f3a2b';
    expect(redactor.text(text)).toBe(text);
    expect(redactor.text('short is too short to count as a secret')).toBe(
      'short is too short to count as a secret',
    );
  });

  it('scrubs configured secrets and every kind of token, wherever they are in the text', () => {
    const tokens = [
      secret,
      'gw_mcp_AbCdEfGh12345678',
      'gw_sa_AbCdEfGh12345678',
      'Bearer abc.def-ghi_jkl',
      'bearer abc.def-ghi_jkl',
      'Basic dXNlcjpwYXNzd29yZA==',
      'sk-0123456789abcdefXYZ',
      'ghp_0123456789abcdefghijKLMN',
      'ya29.a0AfH6SMBx-abc',
      'eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.SflKxwRJSMeKKF2QT4',
      'xoxb-2141029472-691202649728-abcdefGHIJKL',
      'xoxp-2141029472-691202649728-a1b2c3d4e5f6',
      'xoxa-2-abcdefghij0123',
      'xoxe.xoxp-1-Mi0yLTIxNDEwMjk0NzItNjkx',
      'xoxe-1-My0xLTIxNDEwMjk0NzItNjkxMjAy',
      'lin_oauth_0123456789abcdef0123456789abcdef',
      'lin_api_AbCdEf0123456789GhIjKl',
    ];
    for (const token of tokens) {
      expect(redactor.text(`before ${token} after`)).toBe(`before ${REDACTED} after`);
    }
    expect(redactor.text(`${secret}/${secret}`)).toBe(`${REDACTED}/${REDACTED}`);
  });

  it('masks the password of credentials in a URL and keeps the rest', () => {
    expect(redactor.text('connect postgres://gw:hunter2-pass@db.example:5432/gw failed')).toBe(
      `connect postgres://gw:${REDACTED}@db.example:5432/gw failed`,
    );
    expect(redactor.text('https://user:p%40ss@proxy.example.test/x')).toBe(
      `https://user:${REDACTED}@proxy.example.test/x`,
    );
    expect(redactor.text('redis://:only-a-password@cache.example:6379')).toBe(
      `redis://:${REDACTED}@cache.example:6379`,
    );
    // No password, nothing to hide.
    for (const plain of ['postgres://gw@db.example/gw', 'http://127.0.0.1:8787/api/x?at=1@2'])
      expect(redactor.text(plain)).toBe(plain);
  });

  it('leaves words that merely start like a token alone', () => {
    for (const plain of ['xoxo hugs', 'linear_api_docs', 'lin_oauth_short'])
      expect(redactor.text(plain)).toBe(plain);
  });

  it('scrubs a secret added later', () => {
    const later = new Redactor();
    later.addSecret('client-secret-from-env');
    expect(later.text('id=1 secret=client-secret-from-env')).toBe(`id=1 secret=${REDACTED}`);
  });

  it('drops the values of fields named like secrets and scrubs strings in nested values', () => {
    expect(
      redactor.value({
        msg: 'request',
        status: 200,
        accessToken: 'anything',
        nested: { list: [`Bearer ${secret}`, 'plain'], password: null },
      }),
    ).toEqual({
      msg: 'request',
      status: 200,
      accessToken: REDACTED,
      nested: { list: [`Bearer ${REDACTED}`, 'plain'], password: null },
    });
  });

  it('hands back clean values as they are, and copies, never changes, values it scrubs', () => {
    const clean = { msg: 'request', status: 200, nested: { list: ['a', 1, null] } };
    expect(redactor.value(clean)).toBe(clean);

    const input = { route: '/mcp', list: ['plain', `Bearer ${secret}`], token: 'x' };
    const scrubbed = redactor.value(input);
    expect(scrubbed).toEqual({
      route: '/mcp',
      list: ['plain', `Bearer ${REDACTED}`],
      token: REDACTED,
    });
    expect(input).toEqual({ route: '/mcp', list: ['plain', `Bearer ${secret}`], token: 'x' });
  });

  it('logs other objects by their own fields only, never by their toJSON()', () => {
    const url = new URL('postgres://app:hunter2-long-password@db.example.test/gateway');
    expect(JSON.stringify(redactor.value({ url }))).toBe('{"url":{}}');
    class Holder {
      apiKey = 'sk-live-value';
      label = 'kept';
      toJSON() {
        return { apiKey: this.apiKey };
      }
    }
    expect(redactor.value(new Holder())).toEqual({ apiKey: REDACTED, label: 'kept' });
  });
});
