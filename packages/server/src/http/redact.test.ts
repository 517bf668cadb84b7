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
    ];
    for (const token of tokens) {
      expect(redactor.text(`before ${token} after`)).toBe(`before ${REDACTED} after`);
    }
    expect(redactor.text(`${secret}/${secret}`)).toBe(`${REDACTED}/${REDACTED}`);
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
});
