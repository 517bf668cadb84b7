import { describe, expect, it } from 'vitest';
import {
  browser,
  MICROSOFT_ENDPOINTS,
  microsoftEnv,
  startMockProvider,
} from '#test/auth/oauth-test-kit.js';
import { loginAtProvider } from '#test/auth/oidc-provider-server.js';
import { startOidcWorld, webBrowser } from '#test/auth/oidc-world.js';
import {
  authorizeUrl,
  hiddenOf,
  pkce,
  registerClient,
  startOAuthGateway,
  tokenRequest,
} from '#test/mcp-oauth/oauth-kit.js';

describe('signing in with a provider on the way to consent', () => {
  it('goes from the authorize endpoint to the provider, back to the consent page, and on to the client', async () => {
    const idp = await startMockProvider({
      endpoints: MICROSOFT_ENDPOINTS,
      claims: { oid: 'ms-1', email: 'ms@example.test', name: 'MS', tid: 't' },
    });
    const gw = await startOAuthGateway({
      env: { ...microsoftEnv(idp), GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true' },
    });
    const registered = await registerClient(gw.url, {
      client_name: 'Provider client',
      redirect_uris: ['http://127.0.0.1/cb'],
    });
    const clientId = String(registered.body.client_id);
    const { verifier, challenge } = pkce();
    const session = browser((request) => fetch(request, { redirect: 'manual' }), gw.url);
    const first = await session.browse(
      authorizeUrl(gw.url, {
        response_type: 'code',
        client_id: clientId,
        redirect_uri: 'http://127.0.0.1:40200/cb',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        resource: `${gw.url}/mcp`,
        state: 'social',
      }),
    );
    const signIn = new URL(first.headers.get('location') ?? '', gw.url);
    expect(signIn.pathname).toBe('/sign-in');
    const next = signIn.searchParams.get('next') ?? '';
    expect(await (await session.browse(signIn.href)).text()).toContain('Continue with Microsoft');

    const started = await session.browse('/sign-in/social', {
      form: { provider: 'microsoft', next },
    });
    expect(started.status).toBe(303);
    const { response, url } = await session.follow(
      started,
      (target) => target.pathname === '/oauth/authorize',
    );
    expect(url?.pathname).toBe('/oauth/authorize');
    expect(response.status).toBe(302);
    const page = await session.browse(`${url?.pathname}${url?.search}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('ms@example.test');
    const allowed = await session.browse('/oauth/authorize', {
      form: { ...hiddenOf(html), action: 'allow' },
    });
    const callback = new URL(allowed.headers.get('location') ?? '');
    expect(callback.searchParams.get('state')).toBe('social');
    const tokens = await tokenRequest(gw.url, {
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code') ?? '',
      client_id: clientId,
      redirect_uri: 'http://127.0.0.1:40200/cb',
      code_verifier: verifier,
    });
    expect(tokens.status).toBe(200);
  });
});

describe('signing in with a generic OIDC provider on the way to consent', () => {
  it('goes from the authorize endpoint through oidc-provider (discovery) to the consent page and the client', async () => {
    const world = await startOidcWorld();
    const registered = await registerClient(world.url, {
      client_name: 'OIDC client',
      redirect_uris: ['http://127.0.0.1/cb'],
    });
    const clientId = String(registered.body.client_id);
    const { verifier, challenge } = pkce();
    const session = webBrowser(world);
    const first = await session.browse(
      authorizeUrl(world.url, {
        response_type: 'code',
        client_id: clientId,
        redirect_uri: 'http://127.0.0.1:40300/cb',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        resource: `${world.url}/mcp`,
        state: 'oidc',
      }),
    );
    const signIn = new URL(first.headers.get('location') ?? '', world.url);
    expect(signIn.pathname).toBe('/sign-in');
    const next = signIn.searchParams.get('next') ?? '';
    const started = await session.browse('/sign-in/social', { form: { provider: 'gcp', next } });
    expect(started.status).toBe(303);
    const callback = await loginAtProvider(started.headers.get('location') ?? '');
    const { url } = await session.follow(
      await session.browse(callback.toString()),
      (target) => target.pathname === '/oauth/authorize',
    );
    expect(url?.pathname).toBe('/oauth/authorize');
    const page = await session.browse(`${url?.pathname}${url?.search}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Allow OIDC client?');
    const allowed = await session.browse('/oauth/authorize', {
      form: { ...hiddenOf(html), action: 'allow' },
    });
    const back = new URL(allowed.headers.get('location') ?? '');
    expect(back.searchParams.get('state')).toBe('oidc');
    expect(back.searchParams.get('iss')).toBe(world.url);
    const tokens = await tokenRequest(world.url, {
      grant_type: 'authorization_code',
      code: back.searchParams.get('code') ?? '',
      client_id: clientId,
      redirect_uri: 'http://127.0.0.1:40300/cb',
      code_verifier: verifier,
    });
    expect(tokens.status).toBe(200);
    expect(tokens.body.access_token).toMatch(/^gw_oat_/);
  });
});
