/**
 * Issue 32, item 1: scopes. Gateway has one scope, `mcp`, so no client can be given a token
 * without it (asking for anything else is `invalid_scope`, at authorize and at refresh); `/mcp`
 * still checks the scope a token carries and answers a token without `mcp` with 403
 * `insufficient_scope` (RFC 6750 section 3.1, MCP authorization "Runtime insufficient scope").
 */
import { describe, expect, it } from 'vitest';
import type { McpTestGateway } from '#test/mcp/mcp-test-kit.js';
import { INITIALIZE } from '#test/mcp/mcp-test-kit.js';
import {
  authorizeUrl,
  consent,
  pkce,
  registerClient,
  signedInBrowser,
  signIn,
  startOAuthGateway,
  tokenRequest,
} from '#test/mcp-oauth/oauth-kit.js';

function mcpPost(gw: McpTestGateway, token: string) {
  return fetch(`${gw.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify(INITIALIZE),
  });
}

async function nativeClient(gw: McpTestGateway) {
  const { body } = await registerClient(gw.url, {
    client_name: 'Scoped app',
    redirect_uris: ['http://127.0.0.1/callback'],
  });
  return { clientId: String(body.client_id), redirectUri: 'http://127.0.0.1:50200/callback' };
}

describe('MCP authorization server: scopes', () => {
  it('issues only the mcp scope: any other at authorize or refresh is invalid_scope, none means mcp', async () => {
    const gw = await startOAuthGateway();
    const session = await signedInBrowser(gw.url);
    const client = await nativeClient(gw);
    const request = (scope: string | undefined) => ({
      response_type: 'code',
      client_id: client.clientId,
      redirect_uri: client.redirectUri,
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
      resource: `${gw.url}/mcp`,
      state: 'scoped',
      scope,
    });
    for (const scope of ['admin', 'mcp admin', 'openid', 'MCP']) {
      const res = await session.browse(authorizeUrl(gw.url, request(scope)));
      expect(res.status, scope).toBe(302);
      const location = new URL(res.headers.get('location') ?? '');
      expect(Object.fromEntries(location.searchParams), scope).toEqual({
        error: 'invalid_scope',
        error_description: expect.any(String),
        state: 'scoped',
        iss: gw.url,
      });
    }
    // No scope, an empty one or only spaces: the server's default, mcp (RFC 6749 section 3.3).
    for (const scope of [undefined, '', '  ', 'mcp']) {
      const { verifier, challenge } = pkce();
      const { location } = await consent(
        session,
        authorizeUrl(gw.url, { ...request(scope), code_challenge: challenge }),
      );
      const answer = await tokenRequest(gw.url, {
        grant_type: 'authorization_code',
        code: location.searchParams.get('code') ?? '',
        client_id: client.clientId,
        redirect_uri: client.redirectUri,
        code_verifier: verifier,
      });
      expect(answer.status, String(scope)).toBe(200);
      expect(answer.body.scope).toBe('mcp');
    }

    const { body } = await signIn(gw, session, client);
    for (const scope of ['', ' ', 'admin', 'mcp admin']) {
      const refused = await tokenRequest(gw.url, {
        grant_type: 'refresh_token',
        refresh_token: String(body.refresh_token),
        client_id: client.clientId,
        scope,
      });
      expect(refused, JSON.stringify(scope)).toEqual({
        status: 400,
        body: { error: 'invalid_scope', error_description: expect.any(String) },
      });
    }
    // A refused narrowing spends nothing: the refresh token still works, for mcp.
    const refreshed = await tokenRequest(gw.url, {
      grant_type: 'refresh_token',
      refresh_token: String(body.refresh_token),
      client_id: client.clientId,
      scope: 'mcp',
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.scope).toBe('mcp');
    expect((await mcpPost(gw, String(refreshed.body.access_token))).status).toBe(200);
  });

  it('answers a token without the mcp scope with 403 insufficient_scope, naming the scope needed', async () => {
    const gw = await startOAuthGateway();
    const session = await signedInBrowser(gw.url);
    const client = await nativeClient(gw);
    const { body } = await signIn(gw, session, client);
    const access = String(body.access_token);
    // No request can mint such a token (above); a row issued under other scopes stands in for
    // one, as a grant made by a later version with finer scopes would be after a downgrade.
    const { db } = gw.gateway.services.database;
    await db
      .updateTable('mcp_oauth_tokens')
      .set({ scope: 'profile' })
      .where('kind', '=', 'access')
      .execute();
    const refused = await mcpPost(gw, access);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toMatch(
      new RegExp(
        `^Bearer resource_metadata="${gw.url}/.well-known/oauth-protected-resource/mcp", scope="mcp", error="insufficient_scope", error_description="[^"]+"$`,
      ),
    );
    const text = await refused.text();
    expect(JSON.parse(text)).toMatchObject({ error: { code: 'forbidden' } });
    expect(text).not.toContain(access);
    // A valid token that lacks a scope is no failed credential: it is refused the same way again.
    for (let i = 0; i < 3; i++) expect((await mcpPost(gw, access)).status).toBe(403);
    // Signing in again gives a token with the scope, which works.
    const again = await signIn(gw, session, client);
    expect((await mcpPost(gw, String(again.body.access_token))).status).toBe(200);
  });
});
