import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import type { McpTestGateway } from '#test/mcp/mcp-test-kit.js';
import { INITIALIZE } from '#test/mcp/mcp-test-kit.js';
import {
  authorizeUrl,
  consent,
  hiddenOf,
  pkce,
  registerClient,
  serveClientDocument,
  signedInBrowser,
  signIn,
  startOAuthGateway,
  startServer,
  tokenRequest,
} from '#test/mcp-oauth/oauth-kit.js';
import { listEndpoints } from '../mcp-endpoints/index.js';

const NATIVE_REDIRECT = 'http://127.0.0.1/callback';

function mcpPost(gw: McpTestGateway, token?: string) {
  return fetch(`${gw.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify(INITIALIZE),
  });
}

async function nativeClient(gw: McpTestGateway, name = 'Native app') {
  const { status, body } = await registerClient(gw.url, {
    client_name: name,
    redirect_uris: [NATIVE_REDIRECT],
  });
  expect(status).toBe(201);
  return { clientId: String(body.client_id), redirectUri: 'http://127.0.0.1:50123/callback' };
}

/** An RFC 6749 error body: exactly `error` and `error_description`. */
function oauthError(code: string) {
  return { error: code, error_description: expect.any(String) };
}

function baseParams(gw: McpTestGateway, client: { clientId: string; redirectUri: string }) {
  return {
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    code_challenge: pkce().challenge,
    code_challenge_method: 'S256',
    resource: `${gw.url}/mcp`,
    state: 'st-1',
  };
}

describe('MCP authorization server: discovery', () => {
  it('publishes the protected resource and authorization server metadata, and names them in 401s', async () => {
    const gw = await startOAuthGateway();
    for (const path of [
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource',
    ]) {
      const res = await fetch(`${gw.url}${path}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        resource: `${gw.url}/mcp`,
        authorization_servers: [gw.url],
        scopes_supported: ['mcp'],
        bearer_methods_supported: ['header'],
        resource_name: 'Gateway',
      });
    }
    const as = await fetch(`${gw.url}/.well-known/oauth-authorization-server`);
    expect(await as.json()).toMatchObject({
      issuer: gw.url,
      authorization_endpoint: `${gw.url}/oauth/authorize`,
      token_endpoint: `${gw.url}/oauth/token`,
      registration_endpoint: `${gw.url}/oauth/register`,
      revocation_endpoint: `${gw.url}/oauth/revoke`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
    });

    const missing = await mcpPost(gw);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${gw.url}/.well-known/oauth-protected-resource/mcp", scope="mcp"`,
    );
    const bad = await mcpPost(gw, `gw_oat_${'x'.repeat(40)}`);
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toMatch(
      /^Bearer resource_metadata="[^"]+", scope="mcp", error="invalid_token", error_description="[^"]+"$/,
    );
  });

  it('has no metadata, endpoints or challenge with GATEWAY_MCP_OAUTH=off', async () => {
    const gw = await startOAuthGateway({
      env: { GATEWAY_MCP_OAUTH: 'off', GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true' },
    });
    for (const path of [
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-authorization-server',
      '/oauth/authorize?client_id=x',
    ]) {
      expect((await fetch(`${gw.url}${path}`)).status).toBe(404);
    }
    const register = await registerClient(gw.url, { redirect_uris: [NATIVE_REDIRECT] });
    expect(register.status).toBe(404);
    const missing = await mcpPost(gw);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="gateway"');
  });
});

describe('MCP authorization server: attacks', () => {
  it('refuses authorization requests without PKCE, with plain PKCE or for another resource, back at the client', async () => {
    const gw = await startOAuthGateway();
    const session = await signedInBrowser(gw.url);
    const client = await nativeClient(gw);
    const cases: [Record<string, string | undefined>, string][] = [
      [{ code_challenge: undefined, code_challenge_method: undefined }, 'invalid_request'],
      [{ code_challenge_method: 'plain' }, 'invalid_request'],
      [{ code_challenge_method: undefined }, 'invalid_request'],
      [{ resource: undefined }, 'invalid_target'],
      [{ resource: 'https://other.example/mcp' }, 'invalid_target'],
      [{ scope: 'admin' }, 'invalid_scope'],
      [{ response_type: 'token' }, 'unsupported_response_type'],
    ];
    for (const [change, error] of cases) {
      const res = await session.browse(
        authorizeUrl(gw.url, { ...baseParams(gw, client), ...change }),
      );
      expect(res.status).toBe(302);
      const location = new URL(res.headers.get('location') ?? '');
      expect(`${location.origin}${location.pathname}`).toBe('http://127.0.0.1:50123/callback');
      expect(Object.fromEntries(location.searchParams)).toEqual({
        error,
        error_description: expect.any(String),
        state: 'st-1',
        iss: gw.url,
      });
    }
  });

  it('never redirects to an unregistered redirect URI, whatever its spelling', async () => {
    const gw = await startOAuthGateway();
    const session = await signedInBrowser(gw.url);
    const web = await registerClient(gw.url, {
      client_name: 'Web app',
      redirect_uris: ['https://app.example/cb'],
    });
    expect(web.status).toBe(201);
    const webClient = String(web.body.client_id);
    const tricks = [
      'https://app.example@evil.example/cb',
      'https://app.example%2F@evil.example/cb',
      'https://app.example/cb%2F..%2F..%2Fevil',
      'https://app.example/cb/../evil',
      'https://app.example:8443/cb',
      'https://app.example/cb#x',
      'https://APP.example/cb',
      'https://app.example/cb?x=1',
      'http://app.example/cb',
      'https://evil.example/cb',
    ];
    for (const redirectUri of tricks) {
      const res = await session.browse(
        authorizeUrl(gw.url, { ...baseParams(gw, { clientId: webClient, redirectUri }) }),
      );
      expect(res.status, redirectUri).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(await res.text()).toContain('redirect_uri');
    }
    // A native app's loopback redirect takes any port, but nothing else changes.
    const native = await nativeClient(gw);
    for (const [redirectUri, ok] of [
      ['http://127.0.0.1:61000/callback', true],
      ['http://localhost:61000/callback', false],
      ['http://127.0.0.1:61000/callback/x', false],
      ['http://user@127.0.0.1:61000/callback', false],
    ] as const) {
      const res = await session.browse(
        authorizeUrl(gw.url, { ...baseParams(gw, { clientId: native.clientId, redirectUri }) }),
      );
      expect(res.status, redirectUri).toBe(ok ? 200 : 400);
    }
  });

  it('refuses to register redirect URIs that are neither https nor loopback, or tricked', async () => {
    const gw = await startOAuthGateway();
    for (const uri of [
      'http://app.example/cb',
      'https://user:pw@app.example/cb',
      'https://app.example/cb#frag',
      'javascript:alert(1)',
      'https://app.example/a/../cb',
      'not a url',
    ]) {
      const { status, body } = await registerClient(gw.url, { redirect_uris: [uri] });
      expect(status, uri).toBe(400);
      expect(body).toEqual(oauthError('invalid_redirect_uri'));
    }
    const web = await registerClient(gw.url, {
      application_type: 'web',
      redirect_uris: [NATIVE_REDIRECT],
    });
    expect(web.body).toEqual(oauthError('invalid_redirect_uri'));
    const grant = await registerClient(gw.url, {
      redirect_uris: [NATIVE_REDIRECT],
      grant_types: ['client_credentials'],
    });
    expect(grant.body).toEqual(oauthError('invalid_client_metadata'));
    const native = await registerClient(gw.url, {
      client_name: 'Editor',
      redirect_uris: ['http://127.0.0.1/cb', 'com.example.editor:/oauth'],
      token_endpoint_auth_method: 'client_secret_basic',
    });
    expect(native.status).toBe(201);
    expect(native.body).toMatchObject({
      client_name: 'Editor',
      application_type: 'native',
      token_endpoint_auth_method: 'none',
    });
    expect(native.body.client_secret).toBeUndefined();
  });

  it('refuses a replayed code and revokes what it gave; a code of another client; PKCE mismatches', async () => {
    const gw = await startOAuthGateway();
    const session = await signedInBrowser(gw.url);
    const client = await nativeClient(gw);
    const first = await signIn(gw, session, client);
    expect(first.status).toBe(200);
    const accessToken = String(first.body.access_token);
    expect((await mcpPost(gw, accessToken)).status).toBe(200);
    const replay = await tokenRequest(gw.url, {
      grant_type: 'authorization_code',
      code: first.code,
      client_id: client.clientId,
      redirect_uri: client.redirectUri,
      code_verifier: first.verifier,
    });
    expect(replay).toEqual({ status: 400, body: oauthError('invalid_grant') });
    expect((await mcpPost(gw, accessToken)).status).toBe(401);

    // A code is spent by a wrong attempt too: another client, no verifier, a wrong one.
    const other = await nativeClient(gw, 'Other app');
    for (const attempt of [
      { client_id: other.clientId },
      { code_verifier: undefined },
      { code_verifier: pkce().verifier },
      { redirect_uri: 'http://127.0.0.1:50124/callback' },
    ]) {
      const { verifier, challenge } = pkce();
      const { location } = await consent(
        session,
        authorizeUrl(gw.url, { ...baseParams(gw, client), code_challenge: challenge }),
      );
      const form: Record<string, string> = {
        grant_type: 'authorization_code',
        code: location.searchParams.get('code') ?? '',
        client_id: client.clientId,
        redirect_uri: client.redirectUri,
        code_verifier: verifier,
      };
      for (const [name, value] of Object.entries(attempt)) {
        if (value === undefined) delete form[name];
        else form[name] = value;
      }
      const refused = await tokenRequest(gw.url, form);
      expect(refused, JSON.stringify(attempt)).toEqual({
        status: 400,
        body: oauthError('invalid_grant'),
      });
      const again = await tokenRequest(gw.url, {
        ...form,
        ...{
          client_id: client.clientId,
          code_verifier: verifier,
          redirect_uri: client.redirectUri,
        },
      });
      expect(again.body).toEqual(oauthError('invalid_grant'));
    }
  });

  it('rotates refresh tokens; a reused one kills the whole grant', async () => {
    const gw = await startOAuthGateway();
    const session = await signedInBrowser(gw.url);
    const client = await nativeClient(gw);
    const { body } = await signIn(gw, session, client);
    const refreshed = await tokenRequest(gw.url, {
      grant_type: 'refresh_token',
      refresh_token: String(body.refresh_token),
      client_id: client.clientId,
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body).toEqual({
      access_token: expect.stringMatching(/^gw_oat_/),
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: expect.stringMatching(/^gw_ort_/),
      scope: 'mcp',
    });
    expect(refreshed.body.refresh_token).not.toBe(body.refresh_token);
    const fresh = String(refreshed.body.access_token);
    expect((await mcpPost(gw, fresh)).status).toBe(200);

    const reuse = await tokenRequest(gw.url, {
      grant_type: 'refresh_token',
      refresh_token: String(body.refresh_token),
      client_id: client.clientId,
    });
    expect(reuse).toEqual({ status: 400, body: oauthError('invalid_grant') });
    expect((await mcpPost(gw, fresh)).status).toBe(401);
    const next = await tokenRequest(gw.url, {
      grant_type: 'refresh_token',
      refresh_token: String(refreshed.body.refresh_token),
      client_id: client.clientId,
    });
    expect(next.body).toEqual(oauthError('invalid_grant'));
    const [user] = await gw.gateway.services.database.db.selectFrom('user').select('id').execute();
    expect(await listEndpoints(gw.gateway.services.database.db, user?.id ?? '')).toEqual([]);
  });

  it('refuses an expired access token, saying to refresh it, and an expired refresh token', async () => {
    const gw = await startOAuthGateway();
    const session = await signedInBrowser(gw.url);
    const client = await nativeClient(gw);
    const { body } = await signIn(gw, session, client);
    const { db } = gw.gateway.services.database;
    const past = new Date(Date.now() - 1000).toISOString();
    await db
      .updateTable('mcp_oauth_tokens')
      .set({ expires_at: past })
      .where('kind', '=', 'access')
      .execute();
    const expired = await mcpPost(gw, String(body.access_token));
    expect(expired.status).toBe(401);
    expect(expired.headers.get('www-authenticate')).toContain(
      'error="invalid_token", error_description="The access token expired; refresh it"',
    );
    const refreshed = await tokenRequest(gw.url, {
      grant_type: 'refresh_token',
      refresh_token: String(body.refresh_token),
      client_id: client.clientId,
    });
    expect((await mcpPost(gw, String(refreshed.body.access_token))).status).toBe(200);
    await db
      .updateTable('mcp_oauth_tokens')
      .set({ expires_at: past })
      .where('kind', '=', 'refresh')
      .execute();
    const late = await tokenRequest(gw.url, {
      grant_type: 'refresh_token',
      refresh_token: String(refreshed.body.refresh_token),
      client_id: client.clientId,
    });
    expect(late).toEqual({ status: 400, body: oauthError('invalid_grant') });
  });

  it('revokes (RFC 7009): an access token alone, a refresh token with its grant', async () => {
    const gw = await startOAuthGateway();
    const session = await signedInBrowser(gw.url);
    const client = await nativeClient(gw);
    const { body } = await signIn(gw, session, client);
    const revoke = (token: string) =>
      fetch(`${gw.url}/oauth/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token, client_id: client.clientId }).toString(),
      });
    expect((await revoke(String(body.access_token))).status).toBe(200);
    expect((await mcpPost(gw, String(body.access_token))).status).toBe(401);
    const refreshed = await tokenRequest(gw.url, {
      grant_type: 'refresh_token',
      refresh_token: String(body.refresh_token),
      client_id: client.clientId,
    });
    expect((await mcpPost(gw, String(refreshed.body.access_token))).status).toBe(200);
    expect((await revoke(String(refreshed.body.refresh_token))).status).toBe(200);
    expect((await mcpPost(gw, String(refreshed.body.access_token))).status).toBe(401);
    expect((await revoke(`gw_ort_${'x'.repeat(40)}`)).status).toBe(200);
  });

  it('answers every token endpoint mistake in RFC 6749 shape, never a 5xx', async () => {
    const gw = await startOAuthGateway();
    const client = await nativeClient(gw);
    const cases: [Record<string, string>, number, string][] = [
      [{ grant_type: 'password', client_id: client.clientId }, 400, 'unsupported_grant_type'],
      [{ grant_type: 'authorization_code' }, 401, 'invalid_client'],
      [{ grant_type: 'authorization_code', client_id: 'nobody' }, 401, 'invalid_client'],
      [{ grant_type: 'authorization_code', client_id: client.clientId }, 400, 'invalid_request'],
      [
        { grant_type: 'authorization_code', client_id: client.clientId, code: 'gw_oac_x' },
        400,
        'invalid_grant',
      ],
      [
        { grant_type: 'refresh_token', client_id: client.clientId, refresh_token: 'nope' },
        400,
        'invalid_grant',
      ],
      [
        { grant_type: 'authorization_code', client_id: client.clientId, client_secret: 's' },
        401,
        'invalid_client',
      ],
    ];
    for (const [form, status, error] of cases) {
      expect(await tokenRequest(gw.url, form), JSON.stringify(form)).toEqual({
        status,
        body: oauthError(error),
      });
    }
    const json = await fetch(`${gw.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(json.status).toBe(400);
    expect(await json.json()).toEqual(oauthError('invalid_request'));
    const twice = await fetch(`${gw.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=refresh_token&grant_type=authorization_code',
    });
    expect(await twice.json()).toEqual(oauthError('invalid_request'));
    const notJson = await fetch(`${gw.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{',
    });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toEqual(oauthError('invalid_client_metadata'));
    // Too large (declared, or streamed without a length) and the wrong method: still RFC 6749.
    const big = `a=${'x'.repeat(1024 * 1024 + 1)}`;
    for (const path of ['/oauth/token', '/oauth/register', '/oauth/revoke']) {
      const type =
        path === '/oauth/register' ? 'application/json' : 'application/x-www-form-urlencoded';
      const declared = await fetch(`${gw.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': type },
        body: big,
      });
      expect(declared.status, path).toBe(413);
      expect(await declared.json(), path).toEqual(oauthError('invalid_request'));
      const streamed = await fetch(`${gw.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': type },
        body: new Blob([big]).stream(),
        duplex: 'half',
      } as RequestInit);
      expect(streamed.status, path).toBe(413);
      expect(await streamed.json(), path).toEqual(oauthError('invalid_request'));
      const get = await fetch(`${gw.url}${path}`);
      expect(get.status, path).toBe(405);
      expect(get.headers.get('allow'), path).toBe('POST');
      expect(await get.json(), path).toEqual(oauthError('invalid_request'));
    }
    // From a browser-based client on another origin: an OAuth error, not the front door's 403.
    const crossOrigin = await fetch(`${gw.url}/oauth/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: 'http://localhost:6274',
      },
      body: 'grant_type=password',
    });
    expect(crossOrigin.status).toBe(401);
    expect(crossOrigin.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('rate-limits registration per address', async () => {
    const gw = await startOAuthGateway();
    const answers: number[] = [];
    for (let i = 0; i < 21; i++) {
      answers.push((await registerClient(gw.url, { redirect_uris: [NATIVE_REDIRECT] })).status);
    }
    expect(answers.slice(0, 20).every((status) => status === 201)).toBe(true);
    const last = await registerClient(gw.url, { redirect_uris: [NATIVE_REDIRECT] });
    expect(last).toEqual({ status: 429, body: oauthError('temporarily_unavailable') });
  });

  it('protects consent against CSRF and framing; Deny returns access_denied', async () => {
    const gw = await startOAuthGateway();
    const session = await signedInBrowser(gw.url);
    const client = await nativeClient(gw);
    const url = authorizeUrl(gw.url, baseParams(gw, client));
    const page = await session.browse(url);
    expect(page.status).toBe(200);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const html = await page.text();
    expect(html).toContain('Native app');
    expect(html).toContain('Unverified client');
    expect(html).toContain('demo.echo.say');
    const fields = hiddenOf(html);

    const forged = await session.browse('/oauth/authorize', {
      form: { ...fields, csrf: randomBytes(24).toString('base64url'), action: 'allow' },
    });
    expect(forged.status).toBe(403);
    // Another site's page posting the form: refused at the front door.
    const crossSite = await fetch(`${gw.url}/oauth/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: 'http://evil.example',
        cookie: session.jar.header(),
      },
      body: new URLSearchParams({ ...fields, action: 'allow' }).toString(),
    });
    expect(crossSite.status).toBe(403);

    const denied = await session.browse('/oauth/authorize', {
      form: { ...fields, action: 'deny' },
    });
    expect(denied.status).toBe(303);
    const location = new URL(denied.headers.get('location') ?? '');
    expect(Object.fromEntries(location.searchParams)).toEqual({
      error: 'access_denied',
      error_description: expect.any(String),
      state: 'st-1',
      iss: gw.url,
    });
  });

  it('sends a browser that is not signed in to sign in and back to the consent page', async () => {
    const gw = await startOAuthGateway();
    await signedInBrowser(gw.url, 'first@example.test');
    const client = await nativeClient(gw);
    const { browser } = await import('#test/auth/oauth-test-kit.js');
    const session = browser((request) => fetch(request, { redirect: 'manual' }), gw.url);
    const first = await session.browse(authorizeUrl(gw.url, baseParams(gw, client)));
    expect(first.status).toBe(302);
    const signIn = new URL(first.headers.get('location') ?? '', gw.url);
    expect(signIn.pathname).toBe('/sign-in');
    await session.browse('/api/auth/sign-up/email', {
      body: { email: 'second@example.test', password: 'correct horse battery', name: 'Second' },
    });
    const back = await session.browse(signIn.searchParams.get('next') ?? '');
    expect(back.status).toBe(200);
    expect(await back.text()).toContain('Allow Native app?');
  });

  it("binds a user's token to their own endpoint: another user's stays out of reach", async () => {
    const gw = await startOAuthGateway();
    // The first user is the admin, who may manage anyone's endpoints.
    await signedInBrowser(gw.url, 'admin@example.test');
    const alice = await signedInBrowser(gw.url, 'alice@example.test');
    const bob = await signedInBrowser(gw.url, 'bob@example.test');
    const client = await nativeClient(gw);
    const alices = await signIn(gw, alice, client);
    const bobs = await signIn(gw, bob, client);
    const { db } = gw.gateway.services.database;
    const users = await db.selectFrom('user').select(['id', 'email']).execute();
    const bobId = users.find((user) => user.email === 'bob@example.test')?.id ?? '';
    const [bobEndpoint] = await listEndpoints(db, bobId);
    // Alice's access token is no API credential: she cannot reach Bob's endpoint through it.
    const viaApi = await fetch(
      `${gw.url}/api/connections/mcp-endpoints/${bobEndpoint?.id}?userId=${bobId}`,
      { method: 'DELETE', headers: { authorization: `Bearer ${alices.body.access_token}` } },
    );
    expect(viaApi.status).toBe(401);
    // Her browser session cannot either: Bob's endpoint is "not found" to her.
    const viaSession = await alice.browse(
      `/api/connections/mcp-endpoints/${bobEndpoint?.id}?userId=${bobId}`,
      { method: 'DELETE' },
    );
    expect(viaSession.status).toBe(403);
    expect((await mcpPost(gw, String(bobs.body.access_token))).status).toBe(200);
    // Alice's refresh token is no good to Bob's grant, nor for another client.
    const other = await nativeClient(gw, 'Other');
    const stolen = await tokenRequest(gw.url, {
      grant_type: 'refresh_token',
      refresh_token: String(alices.body.refresh_token),
      client_id: other.clientId,
    });
    expect(stolen.body).toEqual(oauthError('invalid_grant'));
  });

  it("refuses a deleted endpoint's tokens at once", async () => {
    const gw = await startOAuthGateway();
    const session = await signedInBrowser(gw.url);
    const client = await nativeClient(gw);
    const { body } = await signIn(gw, session, client);
    const { db } = gw.gateway.services.database;
    const [user] = await db.selectFrom('user').select('id').execute();
    const [endpoint] = await listEndpoints(db, user?.id ?? '');
    const deleted = await session.browse(
      `/api/connections/mcp-endpoints/${endpoint?.id}?userId=${user?.id}`,
      { method: 'DELETE' },
    );
    expect(deleted.status).toBe(200);
    expect((await mcpPost(gw, String(body.access_token))).status).toBe(401);
    const refresh = await tokenRequest(gw.url, {
      grant_type: 'refresh_token',
      refresh_token: String(body.refresh_token),
      client_id: client.clientId,
    });
    expect(refresh.body).toEqual(oauthError('invalid_grant'));
  });
});

describe('MCP authorization server: client id metadata documents', () => {
  // One signed-in browser per gateway: sign-ups from one address are rate-limited.
  const sessions = new WeakMap<McpTestGateway, Awaited<ReturnType<typeof signedInBrowser>>>();
  async function authorizeWith(gw: McpTestGateway, clientId: string) {
    const session = sessions.get(gw) ?? (await signedInBrowser(gw.url));
    sessions.set(gw, session);
    const res = await session.browse(
      authorizeUrl(gw.url, {
        ...baseParams(gw, { clientId, redirectUri: 'http://127.0.0.1:50123/callback' }),
      }),
    );
    return { status: res.status, location: res.headers.get('location'), text: await res.text() };
  }

  it('refuses documents at link-local addresses, at the gateway itself, behind a redirect, too large or too slow', async () => {
    const gw = await startOAuthGateway({
      mcpOAuth: { clientIdFetch: { maxBytes: 2048, timeoutMs: 1500 } },
    });
    // The two that never finish are asked of a gateway with a short limit: they reach it whatever
    // the machine's load, and the others keep a limit a loaded machine cannot reach by accident.
    const impatient = await startOAuthGateway({
      mcpOAuth: { clientIdFetch: { maxBytes: 2048, timeoutMs: 200 } },
    });
    const redirecting = await startServer((_path, res) => {
      res.writeHead(302, { location: 'http://127.0.0.1:1/client.json' }).end();
    });
    const large = await serveClientDocument({
      redirect_uris: ['http://127.0.0.1/callback'],
      padding: 'x'.repeat(5000),
    });
    const slow = await startServer(() => {
      // Never answers: the fetch must give up on its own.
    });
    // Answers at once, then sends its body a byte at a time: the limit covers the whole fetch.
    const dripping = await startServer((_path, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{');
      const drip = setInterval(() => {
        if (res.destroyed) clearInterval(drip);
        else res.write(' ');
      }, 100);
      res.on('close', () => clearInterval(drip));
    });
    for (const [clientId, reason] of [
      ['https://169.254.169.254/client.json', /link-local/],
      ['https://[fe80::1]/client.json', /link-local/],
      ['https://[::ffff:a9fe:a9fe]/client.json', /link-local/],
      ['https://0xa9fea9fe/client.json', /canonical/],
      [`${gw.url}/client.json`, /gateway itself/],
      [`${gw.url.replace('127.0.0.1', 'localhost')}/client.json`, /gateway itself/],
      [`${gw.url.replace('127.0.0.1', '[::1]')}/client.json`, /gateway itself/],
      [`${redirecting.url}/client.json`, /redirect/],
      [large.clientId, /bytes/],
      ['http://app.example/client.json', /https/],
      [`${redirecting.url}/`, /path/],
    ] as const) {
      const answer = await authorizeWith(gw, clientId);
      expect(answer.status, clientId).toBe(400);
      expect(answer.location).toBeNull();
      expect(answer.text, clientId).toMatch(reason);
    }
    for (const clientId of [`${slow.url}/client.json`, `${dripping.url}/client.json`]) {
      const answer = await authorizeWith(impatient, clientId);
      expect(answer.status, clientId).toBe(400);
      expect(answer.location).toBeNull();
      expect(answer.text, clientId).toMatch(/within 200 ms/);
    }
  });

  it('refuses documents on loopback and private addresses under the default URL policy', async () => {
    // Without GATEWAY_UPSTREAM_ALLOW_PRIVATE, as in production.
    const gw = await startOAuthGateway({ env: {} });
    const served = await serveClientDocument({ redirect_uris: ['http://127.0.0.1/callback'] });
    for (const [clientId, reason] of [
      [served.clientId.replace('http:', 'https:'), /loopback/],
      ['https://localhost:1/client.json', /loopback/],
      ['https://[::1]:1/client.json', /loopback/],
      ['https://10.0.0.1/client.json', /private/],
      ['https://192.168.1.1/client.json', /private/],
    ] as const) {
      const answer = await authorizeWith(gw, clientId);
      expect(answer.status, clientId).toBe(400);
      expect(answer.location).toBeNull();
      expect(answer.text, clientId).toMatch(reason);
    }
    expect(served.hits()).toBe(0);
  });

  it('says one sentence for every host it cannot reach, so names inside the network cannot be mapped', async () => {
    // Without GATEWAY_UPSTREAM_ALLOW_PRIVATE, as in production. A name that does not resolve and
    // one that does (this machine's own name: to a loopback or private address, refused at
    // connect, or to one with nothing on port 1) must read the same.
    const gw = await startOAuthGateway({ env: {} });
    const texts: string[] = [];
    for (const clientId of [
      'https://no-such-host.invalid/client.json',
      `https://${hostname()}:1/client.json`,
    ]) {
      const answer = await authorizeWith(gw, clientId);
      expect(answer.status, clientId).toBe(400);
      expect(answer.location).toBeNull();
      expect(answer.text, clientId).toContain('its host could not be reached');
      for (const clue of ['ENOTFOUND', 'EAI_AGAIN', 'getaddrinfo', 'ECONNREFUSED', 'resolves']) {
        expect(answer.text, clientId).not.toContain(clue);
      }
      texts.push(answer.text.replaceAll(clientId, '<client_id>'));
    }
    expect(texts[1]).toBe(texts[0]);
  });

  it('caches a document as its Cache-Control says, and refuses one naming another client', async () => {
    const gw = await startOAuthGateway();
    const cached = await serveClientDocument(
      { client_name: 'Cached', redirect_uris: ['http://127.0.0.1/callback'] },
      { 'content-type': 'application/json', 'cache-control': 'max-age=600' },
    );
    expect((await authorizeWith(gw, cached.clientId)).status).toBe(200);
    expect((await authorizeWith(gw, cached.clientId)).status).toBe(200);
    expect(cached.hits()).toBe(1);
    const uncached = await serveClientDocument(
      { client_name: 'Uncached', redirect_uris: ['http://127.0.0.1/callback'] },
      { 'content-type': 'application/json', 'cache-control': 'no-store' },
    );
    const page = await authorizeWith(gw, uncached.clientId);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Uncached');
    expect(page.text).toContain('Identified by');
    await authorizeWith(gw, uncached.clientId);
    expect(uncached.hits()).toBe(2);

    const liar = await serveClientDocument({
      client_id: 'https://claude.ai/client.json',
      redirect_uris: ['http://127.0.0.1/callback'],
    });
    const refused = await authorizeWith(gw, liar.clientId);
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('another client_id');
  });
});
