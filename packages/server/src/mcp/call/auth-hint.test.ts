import { AuthRequiredError } from '@gateway/sdk';
import { describe, expect, it } from 'vitest';
import { authRequiredMessage } from './auth-hint.js';

const BASE = 'https://gw.example.com';
const HOW =
  'Connect it in the Tools tab of https://gw.example.com or run `gateway connect github`.';

describe('authRequiredMessage', () => {
  it('keeps a message that already says how to connect', () => {
    const vendor = new AuthRequiredError('github', `No credential for "github". ${HOW}`);
    expect(authRequiredMessage(vendor, BASE)).toBe(`No credential for "github". ${HOW}`);
  });

  it("gives the sdk's default message the gateway's address instead of 'the web app'", () => {
    expect(authRequiredMessage(new AuthRequiredError('github'), BASE)).toBe(
      `No credential for "github". ${HOW}`,
    );
  });

  it("adds the instructions once to a plugin's own message", () => {
    const own = new AuthRequiredError('github', 'The GitHub app was uninstalled.');
    expect(authRequiredMessage(own, BASE)).toBe(`The GitHub app was uninstalled. ${HOW}`);
  });
});
