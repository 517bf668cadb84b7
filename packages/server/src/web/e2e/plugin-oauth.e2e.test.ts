/**
 * Issue 34 in Debian's chromium: an admin gives a plugin's own OAuth provider its client in
 * Admin → Providers; a person connects it from the Tools tab's Connect button, through
 * `oidc-provider`'s own login and consent pages on loopback; the plugin calls its API with their
 * token, 50 concurrent calls after expiry refresh it once, and after the grant is revoked the
 * Tools tab shows Reconnect, which connects again. And the same Connect button against
 * `oauth2-mock-server` as a provider with explicit endpoints (no discovery).
 */
import type { BrowserContext } from 'playwright-core';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startMockProvider } from '#test/auth/oauth-test-kit.js';
import { startOidcProvider } from '#test/auth/oidc-provider-server.js';
import { connectV1 } from '#test/mcp/mcp-test-kit.js';
import {
  connection,
  expire,
  freePort,
  notesPlugin,
  revoke,
  startFakeApi,
  startPluginGateway,
} from '#test/plugin-oauth/plugin-oauth-world.js';
import { rememberSecret } from '#test/support/known-secrets.js';
import { sharedChromium, throughAuthorizationServer } from '#test/web/browser.js';
import { createEndpoint } from '../../mcp-endpoints/index.js';

const text = (result: unknown) =>
  (result as { content: { type: string; text: string }[] }).content[0]?.text ?? '';

async function signUp(context: BrowserContext, url: string, name: string): Promise<string> {
  const answer = await context.request.post('/api/auth/sign-up/email', {
    data: { name, email: `${name}@example.test`, password: 'correct horse battery staple' },
    headers: { origin: url },
  });
  expect(answer.ok()).toBe(true);
  return ((await answer.json()) as { user: { id: string } }).user.id;
}

describe('a plugin’s own OAuth provider in chromium', () => {
  it('is given its client by an admin, connected from the Tools tab, refreshed once for 50 calls, and reconnected after revocation', async () => {
    const port = await freePort();
    const idp = await startOidcProvider({
      redirectUri: `http://127.0.0.1:${port}/oauth/upstream/callback`,
    });
    rememberSecret(idp.clientSecret);
    const api = await startFakeApi(async (authorization) => {
      const me = await fetch(`${idp.issuer}/me`, { headers: { authorization } });
      return me.status === 200 ? ((await me.json()) as { sub: string }).sub : undefined;
    });
    const plugin = notesPlugin(api.url, {
      issuer: idp.issuer,
      scopes: ['openid', 'offline_access'],
      // oidc-provider issues a refresh token only when consent was asked for.
      authorizationParams: { prompt: 'consent' },
    });
    // No NOTION_CLIENT_ID in the settings: the admin gives the client in the web app.
    const { gw, url } = await startPluginGateway({ port, plugins: [plugin], env: {} });
    const chromium = await sharedChromium();
    onTestFinished(() => chromium.close());

    // The first to sign up is the admin.
    const admin = await chromium.newContext({ baseURL: url });
    admin.setDefaultTimeout(15_000);
    await signUp(admin, url, 'grace');
    const adminPage = await admin.newPage();
    await adminPage.goto('/admin/providers');
    const card = adminPage.locator('[data-provider="notion"]');
    expect(await card.textContent()).toContain('Not set up');
    await card.locator('#client-id-notion').fill(idp.clientId);
    await card.locator('#client-secret-notion').fill(idp.clientSecret);
    await card.getByRole('button', { name: 'Save client of notion' }).click();
    await adminPage.waitForURL('**/admin/providers');
    expect(await adminPage.locator('.notice.ok').textContent()).toContain(
      'The client of notion is saved',
    );
    expect(await card.textContent()).toContain('set (never shown)');
    expect(await adminPage.content()).not.toContain(idp.clientSecret);

    const context = await chromium.newContext({ baseURL: url });
    context.setDefaultTimeout(15_000);
    const adaId = await signUp(context, url, 'ada');
    const page = await context.newPage();
    await page.goto('/tools');
    const block = page.locator('[data-provider="notion"]');
    await block.getByRole('button', { name: 'Connect Notes' }).click();
    await page.waitForURL((next) => next.origin === idp.issuer);
    await throughAuthorizationServer(page, url, 'ada-sub');
    await page.waitForURL('**/tools?connected=notion');
    expect(await page.locator('.notice.ok').textContent()).toBe('notion connected.');
    expect(await page.content()).not.toContain('eyJ');

    const endpoint = await createEndpoint(gw.services.database.db, {
      userId: adaId,
      name: 'chromium',
    });
    if (!endpoint.ok) throw new Error(endpoint.problem);
    rememberSecret(endpoint.endpoint.token);
    const { client } = await connectV1(url, endpoint.endpoint.token);
    const me = await client.callTool({ name: 'notes.me.get', arguments: {} });
    expect(me.isError).toBeFalsy();
    expect(me.structuredContent ?? JSON.parse(text(me))).toEqual({ sub: 'ada-sub' });
    const first = await expire(gw, adaId);
    rememberSecret(first.accessToken);
    rememberSecret(first.refreshToken);
    expect(api.seen.at(-1)).toBe(`Bearer ${first.accessToken}`);

    // Expired: 50 concurrent calls, one refresh.
    const results = await Promise.all(
      Array.from({ length: 50 }, () => client.callTool({ name: 'notes.me.get', arguments: {} })),
    );
    expect(results.filter((result) => result.isError)).toEqual([]);
    expect(idp.grants('refresh_token')).toBe(1);

    // The grant revoked at the provider: the next refresh is refused, the call says Reconnect.
    const second = await expire(gw, adaId);
    rememberSecret(second.accessToken);
    rememberSecret(second.refreshToken);
    await revoke(idp, second.refreshToken);
    const refused = await client.callTool({ name: 'notes.me.get', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain('Reconnect it in the Tools tab');

    await page.goto('/tools');
    expect(await block.locator('[data-reconnect="@notion"]').count()).toBe(1);
    await block.getByRole('button', { name: 'Reconnect Notes' }).click();
    await page.waitForURL((next) => next.origin === idp.issuer);
    await throughAuthorizationServer(page, url, 'ada-sub');
    await page.waitForURL('**/tools?connected=notion');
    expect(await block.locator('[data-reconnect]').count()).toBe(0);
    const again = await client.callTool({ name: 'notes.me.get', arguments: {} });
    expect(again.isError).toBeFalsy();
    const now = JSON.parse(
      gw.services.secrets.decrypt((await connection(gw, adaId)).encrypted_secret),
    ) as { accessToken: string; refreshToken: string };
    rememberSecret(now.accessToken);
    rememberSecret(now.refreshToken);
    expect(gw.logs()).not.toContain(idp.clientSecret);
  }, 120_000);

  it('connects a provider with explicit endpoints (oauth2-mock-server) from the Tools tab', async () => {
    const idp = await startMockProvider({ claims: { sub: 'mock-sub' } });
    const port = await freePort();
    const api = await startFakeApi(async (authorization) =>
      authorization.startsWith('Bearer ') ? 'mock-user' : undefined,
    );
    const plugin = notesPlugin(api.url, {
      authorizationUrl: `${idp.url}/authorize`,
      tokenUrl: `${idp.url}/token`,
      scopes: ['notes.read'],
    });
    const secret = 'mock-client-secret-0123456789';
    rememberSecret(secret);
    const { gw, url } = await startPluginGateway({
      port,
      plugins: [plugin],
      env: { NOTION_CLIENT_ID: 'mock-client', NOTION_CLIENT_SECRET: secret },
    });
    const chromium = await sharedChromium();
    onTestFinished(() => chromium.close());
    const context = await chromium.newContext({ baseURL: url });
    context.setDefaultTimeout(15_000);
    const adaId = await signUp(context, url, 'ada');
    const page = await context.newPage();
    await page.goto('/tools');
    // The mock server answers the authorization at once, as a user signed in there would.
    await page
      .locator('[data-provider="notion"]')
      .getByRole('button', { name: 'Connect Notes' })
      .click();
    await page.waitForURL('**/tools?connected=notion');
    expect(await page.locator('.notice.ok').textContent()).toBe('notion connected.');
    for (const token of idp.issuedAccessTokens) rememberSecret(token);
    for (const token of idp.issuedRefreshTokens) rememberSecret(token);
    const [token] = idp.issuedAccessTokens;
    expect(token).toBeDefined();
    expect(await page.content()).not.toContain(token);

    const endpoint = await createEndpoint(gw.services.database.db, {
      userId: adaId,
      name: 'chromium',
    });
    if (!endpoint.ok) throw new Error(endpoint.problem);
    rememberSecret(endpoint.endpoint.token);
    const { client } = await connectV1(url, endpoint.endpoint.token);
    const me = await client.callTool({ name: 'notes.me.get', arguments: {} });
    expect(me.isError).toBeFalsy();
    expect(api.seen.at(-1)).toBe(`Bearer ${token}`);
    expect(gw.logs()).not.toContain(secret);
  }, 120_000);
});
