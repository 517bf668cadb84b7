/**
 * Issue 32, item 2: tokens are bound to the resource they were asked for (RFC 8707). The token
 * endpoint refuses a code or a refresh token presented for another resource with `invalid_target`;
 * `/mcp` refusing a token minted for another gateway's resource is in instances.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  authorizationCode,
  registerClient,
  signedInBrowser,
  signIn,
  startOAuthGateway,
  tokenRequest,
} from '#test/mcp-oauth/oauth-kit.js';

describe('MCP authorization server: resource binding', () => {
  it('refuses a code or a refresh token presented for another resource with invalid_target', async () => {
    const gw = await startOAuthGateway();
    const session = await signedInBrowser(gw.url);
    const { body: registered } = await registerClient(gw.url, {
      redirect_uris: ['http://127.0.0.1/callback'],
    });
    const client = {
      clientId: String(registered.client_id),
      redirectUri: 'http://127.0.0.1:50400/callback',
    };
    const { code, verifier } = await authorizationCode(gw, session, client);
    const redeem = {
      grant_type: 'authorization_code',
      code,
      client_id: client.clientId,
      redirect_uri: client.redirectUri,
      code_verifier: verifier,
    };
    const elsewhere = await tokenRequest(gw.url, {
      ...redeem,
      resource: 'https://other.example/mcp',
    });
    expect(elsewhere).toEqual({
      status: 400,
      body: { error: 'invalid_target', error_description: expect.any(String) },
    });
    // The code is spent by the refused attempt.
    expect((await tokenRequest(gw.url, redeem)).body).toMatchObject({ error: 'invalid_grant' });

    const { body } = await signIn(gw, session, client);
    const refresh = {
      grant_type: 'refresh_token',
      refresh_token: String(body.refresh_token),
      client_id: client.clientId,
    };
    for (const resource of ['https://other.example/mcp', `${gw.url}/api`, gw.url]) {
      expect(await tokenRequest(gw.url, { ...refresh, resource }), resource).toEqual({
        status: 400,
        body: { error: 'invalid_target', error_description: expect.any(String) },
      });
    }
    const same = await tokenRequest(gw.url, { ...refresh, resource: `${gw.url}/mcp` });
    expect(same.status).toBe(200);
  });
});
