/**
 * Issue 32, item 6: the authorization server's settings take effect over real HTTP: allowed
 * redirect hosts, allowed client id origins, and the token lifetimes.
 */
import { describe, expect, it } from 'vitest';
import {
  authorizeUrl,
  pkce,
  registerClient,
  serveClientDocument,
  signedInBrowser,
  signIn,
  startOAuthGateway,
} from '#test/mcp-oauth/oauth-kit.js';
import { sharedDatabaseTargets } from '#test/support/shared-database.js';

const LOOPBACK = 'http://127.0.0.1/callback';

describe('MCP authorization server: settings', () => {
  it('registers only https redirects to GATEWAY_MCP_OAUTH_REDIRECT_HOSTS, loopback ones always', async () => {
    const gw = await startOAuthGateway({
      env: {
        GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true',
        GATEWAY_MCP_OAUTH_REDIRECT_HOSTS: 'claude.ai,chatgpt.com',
      },
    });
    const refused = await registerClient(gw.url, { redirect_uris: ['https://evil.example/cb'] });
    expect(refused).toEqual({
      status: 400,
      body: { error: 'invalid_redirect_uri', error_description: expect.stringContaining('evil') },
    });
    for (const uris of [
      ['https://claude.ai/api/mcp/auth_callback'],
      ['https://chatgpt.com/connector_platform_oauth_redirect'],
      [LOOPBACK],
    ]) {
      expect((await registerClient(gw.url, { redirect_uris: uris })).status, uris[0]).toBe(201);
    }
    // A client id metadata document is held to the same list.
    const session = await signedInBrowser(gw.url);
    const document = await serveClientDocument({ redirect_uris: ['https://evil.example/cb'] });
    const page = await session.browse(
      authorizeUrl(gw.url, {
        response_type: 'code',
        client_id: document.clientId,
        redirect_uri: 'https://evil.example/cb',
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
        resource: `${gw.url}/mcp`,
      }),
    );
    expect(page.status).toBe(400);
    expect(page.headers.get('location')).toBeNull();
    expect(await page.text()).toContain('not an allowed redirect host');
  });

  it('fetches client id metadata documents only from GATEWAY_MCP_OAUTH_CLIENT_ID_ORIGINS', async () => {
    const allowed = await serveClientDocument({
      client_name: 'Allowed',
      redirect_uris: [LOOPBACK],
    });
    const other = await serveClientDocument({ client_name: 'Other', redirect_uris: [LOOPBACK] });
    const gw = await startOAuthGateway({
      env: {
        GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true',
        GATEWAY_MCP_OAUTH_CLIENT_ID_ORIGINS: new URL(allowed.clientId).origin,
      },
    });
    const session = await signedInBrowser(gw.url);
    const authorize = (clientId: string) =>
      session.browse(
        authorizeUrl(gw.url, {
          response_type: 'code',
          client_id: clientId,
          redirect_uri: 'http://127.0.0.1:50300/callback',
          code_challenge: pkce().challenge,
          code_challenge_method: 'S256',
          resource: `${gw.url}/mcp`,
        }),
      );
    const ok = await authorize(allowed.clientId);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('Allow Allowed?');
    const refused = await authorize(other.clientId);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('GATEWAY_MCP_OAUTH_CLIENT_ID_ORIGINS');
    expect(other.hits()).toBe(0);
  });

  it('issues tokens for the lifetimes set, stored only as hashes', async () => {
    const gw = await startOAuthGateway({
      env: {
        GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true',
        GATEWAY_MCP_OAUTH_ACCESS_TOKEN_SECONDS: '120',
        GATEWAY_MCP_OAUTH_REFRESH_TOKEN_DAYS: '2',
      },
    });
    const session = await signedInBrowser(gw.url);
    const { body } = await registerClient(gw.url, { redirect_uris: [LOOPBACK] });
    const before = Date.now();
    const answer = await signIn(gw, session, {
      clientId: String(body.client_id),
      redirectUri: 'http://127.0.0.1:50301/callback',
    });
    expect(answer.status).toBe(200);
    expect(answer.body.expires_in).toBe(120);
    const rows = await gw.gateway.services.database.db
      .selectFrom('mcp_oauth_tokens')
      .select(['kind', 'expires_at', 'token_hash'])
      .execute();
    // Stored as SHA-256 digests only, like gw_mcp_ tokens.
    expect(rows.map((row) => row.token_hash)).toEqual([
      expect.stringMatching(/^[0-9a-f]{64}$/),
      expect.stringMatching(/^[0-9a-f]{64}$/),
    ]);
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(String(answer.body.access_token));
    expect(stored).not.toContain(String(answer.body.refresh_token));
    const lifetime = (kind: string) =>
      Date.parse(rows.find((row) => row.kind === kind)?.expires_at ?? '') - before;
    expect(lifetime('access')).toBeGreaterThanOrEqual(120_000);
    expect(lifetime('access')).toBeLessThan(180_000);
    expect(lifetime('refresh')).toBeGreaterThanOrEqual(2 * 86_400_000);
    expect(lifetime('refresh')).toBeLessThan(2 * 86_400_000 + 60_000);
  });

  it('with GATEWAY_MCP_OAUTH=off, answers 404 at every OAuth path and refuses tokens issued while it was on', async () => {
    // One SQLite file: the same data under both settings.
    const databaseUrl = await sharedDatabaseTargets()[0]?.databaseUrl();
    const on = await startOAuthGateway({ databaseUrl });
    const session = await signedInBrowser(on.url);
    const { body: client } = await registerClient(on.url, { redirect_uris: [LOOPBACK] });
    const { body } = await signIn(on, session, {
      clientId: String(client.client_id),
      redirectUri: 'http://127.0.0.1:50302/callback',
    });
    const off = await startOAuthGateway({
      databaseUrl,
      baseUrl: on.url,
      env: { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true', GATEWAY_MCP_OAUTH: 'off' },
    });
    for (const [method, path] of [
      ['GET', '/.well-known/oauth-protected-resource'],
      ['GET', '/.well-known/oauth-protected-resource/mcp'],
      ['GET', '/.well-known/oauth-authorization-server'],
      ['GET', '/oauth/authorize'],
      ['POST', '/oauth/token'],
      ['POST', '/oauth/register'],
      ['POST', '/oauth/revoke'],
    ] as const) {
      const res = await fetch(`${off.url}${path}`, {
        method,
        ...(method === 'POST'
          ? {
              headers: { 'content-type': 'application/x-www-form-urlencoded' },
              body: new URLSearchParams({
                grant_type: 'refresh_token',
                refresh_token: String(body.refresh_token),
                client_id: String(client.client_id),
              }).toString(),
            }
          : {}),
      });
      expect(res.status, path).toBe(404);
    }
    const refused = await fetch(`${off.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${body.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{}',
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('realm="gateway"');
    expect(await refused.text()).toContain('OAuth sign-in is turned off');
  });
});
