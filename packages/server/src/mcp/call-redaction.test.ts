import { AuthRequiredError } from '@gateway/sdk';
import { describe, expect, it } from 'vitest';
import { REDACTED, Redactor } from '../http/redact.js';
import { CallRedaction } from './call-redaction.js';

const server = new Redactor(['configured-server-secret']);
const KEY = 'vended-key-0123456789';

describe('CallRedaction', () => {
  it('makes no redactor and copies nothing for a call that vends nothing', () => {
    const redaction = new CallRedaction(server);
    const result = { content: [{ type: 'text', text: 'hello' }] };
    expect(redaction.vended).toBe(false);
    expect(redaction.data(result)).toBe(result);
    expect(redaction.message('hello')).toBe('hello');
    // Log text still gets the server's rules.
    expect(redaction.text('configured-server-secret')).toBe(REDACTED);
  });

  it('masks what the watched resolver returned, from then on, and hands the tool the real value', async () => {
    const redaction = new CallRedaction(server);
    const auth = redaction.watch({ getToken: async () => KEY });
    expect(redaction.message(`key ${KEY}`)).toBe(`key ${KEY}`);
    expect(await auth.getToken('vault')).toBe(KEY);
    expect(redaction.vended).toBe(true);
    expect(redaction.message(`key ${KEY}`)).toBe(`key ${REDACTED}`);
    expect(redaction.data({ list: [`x${KEY}x`], nextPageToken: 'kept-as-is' })).toEqual({
      list: [`x${REDACTED}x`],
      nextPageToken: 'kept-as-is',
    });
    expect(redaction.value({ note: KEY, token: 'short' })).toEqual({
      note: REDACTED,
      token: REDACTED,
    });
  });

  it('passes a vending failure through and masks nothing new', async () => {
    const redaction = new CallRedaction(server);
    const auth = redaction.watch({
      getToken: async (provider) => {
        throw new AuthRequiredError(provider);
      },
    });
    await expect(auth.getToken('vault')).rejects.toThrow(AuthRequiredError);
    expect(redaction.vended).toBe(false);
  });
});
