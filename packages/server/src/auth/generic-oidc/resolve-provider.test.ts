import { describe, expect, it } from 'vitest';
import { resolveGenericProvider } from './resolve-provider.js';

const client = { clientId: 'id', clientSecret: 'secret' };
const github = { id: 'github', name: 'GitHub' };
const callback = 'http://127.0.0.1:8787/api/auth/callback/github';
const local = {
  GITHUB_AUTHORIZATION_URL: 'http://127.0.0.1:9000/authorize',
  GITHUB_TOKEN_URL: 'http://127.0.0.1:9000/token',
  GITHUB_USERINFO_URL: 'http://127.0.0.1:9000/userinfo',
};

describe('resolveGenericProvider', () => {
  it('leaves a social provider to better-auth unless its endpoints are overridden', () => {
    expect(resolveGenericProvider({}, github, client, callback)).toBeUndefined();
  });

  it('runs a social provider pointed elsewhere as plain OAuth 2.0 at its own callback', () => {
    const config = resolveGenericProvider(local, github, client, callback);
    expect(config).toMatchObject({
      id: 'github',
      mode: 'oauth2',
      redirectURI: callback,
      authorizationUrl: local.GITHUB_AUTHORIZATION_URL,
      tokenUrl: local.GITHUB_TOKEN_URL,
      userInfoUrl: local.GITHUB_USERINFO_URL,
    });
  });

  it('warns about the missing issuer only when the scopes ask for an ID token', () => {
    const openid = resolveGenericProvider(local, github, client, callback);
    expect(openid?.warnings).toEqual([expect.stringContaining('without GITHUB_ISSUER_URL')]);
    const plain = resolveGenericProvider(
      { ...local, GITHUB_SCOPES: 'read:user repo' },
      github,
      client,
      callback,
    );
    expect(plain?.scopes).toEqual(['read:user', 'repo']);
    expect(plain?.warnings).toEqual([]);
  });
});
