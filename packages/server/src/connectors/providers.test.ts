import { SIGN_IN_PROVIDER_IDS } from '@gateway/sdk/kernel';
import { describe, expect, it } from 'vitest';
import { OAUTH_PROVIDERS } from './providers.js';

describe('sign-in providers', () => {
  it('are the ones the sdk lets an oauth2 auth provider name', () => {
    // definePlugin() refuses any other `provider` by name (issue 34).
    expect([...SIGN_IN_PROVIDER_IDS].sort()).toEqual(OAUTH_PROVIDERS.map((p) => p.id).sort());
  });
});
