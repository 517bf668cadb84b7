import { testSigningKey } from '@gateway/server/testing';
import { OAuth2Server } from 'oauth2-mock-server';
import { onTestFinished } from 'vitest';

// Test-only: a real local OAuth/OIDC provider (oauth2-mock-server), as the server's own sign-in
// tests use, for `gateway connect` of an OAuth tool.

/** A running provider: its issuer URL and the environment that points a gateway at it. */
export interface OAuthProvider {
  url: string;
  server: OAuth2Server;
  /** `<ID>_CLIENT_ID`, `_CLIENT_SECRET` and the endpoints of a generic provider `id`. */
  gatewayEnv(id: string): Record<string, string>;
}

/**
 * Starts a provider on 127.0.0.1 at a free port, stopped when the test finishes. Every token and
 * userinfo answer carries `claims`. It approves every authorization request at once, as a user
 * already signed in upstream would.
 */
export async function startOAuthProvider(claims: Record<string, unknown>): Promise<OAuthProvider> {
  const server = new OAuth2Server();
  await server.issuer.keys.add(await testSigningKey());
  await server.start(0, '127.0.0.1');
  onTestFinished(() => server.stop());
  const url = server.issuer.url;
  if (url === undefined) throw new Error('the mock OAuth server has no issuer URL');
  const all = { email_verified: true, ...claims };
  server.service.on('beforeTokenSigning', (token) => {
    Object.assign(token.payload, all);
  });
  server.service.on('beforeUserinfo', (response) => {
    response.body = { ...all };
  });
  return {
    url,
    server,
    gatewayEnv(id) {
      const prefix = id.toUpperCase();
      return {
        [`${prefix}_CLIENT_ID`]: `${id}-client`,
        [`${prefix}_CLIENT_SECRET`]: `${id}-client-secret-0123456789`,
        [`${prefix}_AUTHORIZATION_URL`]: `${url}/authorize`,
        [`${prefix}_TOKEN_URL`]: `${url}/token`,
        [`${prefix}_USERINFO_URL`]: `${url}/userinfo`,
      };
    },
  };
}
