import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { reasonOf } from './failure-reasons.js';

describe('reasonOf', () => {
  // Issue 37 note: a timed-out `initialize` or version probe read "failed".
  it('says a request of the SDK client timed out, with its limit when the error gives one', () => {
    const timedOut = (message: string, data?: unknown) =>
      reasonOf(new SdkError(SdkErrorCode.RequestTimeout, message, data));
    expect(timedOut('Request timed out', { timeout: 15_000 })).toBe('did not answer within 15 s');
    expect(timedOut('Maximum total timeout exceeded', { maxTotalTimeout: 2500 })).toBe(
      'did not answer within 2.5 s',
    );
    // A stop's reason is the error's message: never repeated, it may name anything.
    expect(timedOut('https://up.example/mcp?key=sekrit stopped')).toBe('did not answer in time');
  });
});
