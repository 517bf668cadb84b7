/**
 * The CLI's browser pages in Debian's chromium, against a loopback listener the test starts in
 * place of the CLI's: `gateway login` (sign in, approve, the code reaches the listener and the
 * browser ends on the gateway's complete page) and `gateway connect <provider>` (confirm, the
 * local OAuth server, the listener is told, the connect-complete page).
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rememberSecret } from '#test/support/known-secrets.js';
import { type BrowserWorld, PASSWORD, shot, startBrowserWorld } from '#test/web/browser-world.js';
import { type LoopbackListener, startLoopbackListener } from '#test/web/loopback-listener.js';

let bw: BrowserWorld;
const listeners: LoopbackListener[] = [];

beforeAll(async () => {
  bw = await startBrowserWorld();
});

afterAll(async () => {
  for (const listener of listeners) await listener.close();
  await bw?.close();
});

async function listener(): Promise<LoopbackListener> {
  const started = await startLoopbackListener();
  listeners.push(started);
  return started;
}

// 43 characters: the shortest PKCE verifier RFC 7636 allows.
const random = () => randomBytes(32).toString('base64url');

describe('the CLI pages in a real browser', () => {
  it('gateway login: signs in, approves, hands the code to the loopback and ends on the complete page', async () => {
    const lou = await bw.signUp('Lou Terminal', 'lou@example.test');
    await lou.context.clearCookies();
    const { page } = lou;
    const loopback = await listener();
    const state = random();
    const verifier = random();
    const query = new URLSearchParams({
      response_type: 'code',
      redirect_uri: loopback.redirectUri,
      state,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      client_name: 'gateway CLI on laptop',
    });
    await page.goto(`/cli/authorize?${query}`);
    await page.waitForURL('**/cli/sign-in?next=**');
    expect(await page.locator('.site-header .brand').textContent()).toContain('Gateway');
    await shot(page, 'cli-sign-in');
    await page.getByLabel('Email').fill('lou@example.test');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();

    await page.waitForURL('**/cli/authorize?**');
    expect(await page.locator('main').textContent()).toContain('lou@example.test');
    expect(await page.locator('main').textContent()).toContain(
      `listening on port ${new URL(loopback.redirectUri).port}`,
    );
    await shot(page, 'cli-authorize');
    await page.getByRole('button', { name: 'Approve' }).click();

    // Through the listener, on to the gateway's own last page.
    await page.waitForURL('**/cli/authorize/complete');
    expect(await page.locator('h1').textContent()).toBe('Command line approved');
    expect(await page.locator('main').textContent()).toContain('lou@example.test');
    expect(await page.locator('.site-header .brand').textContent()).toContain('Gateway');
    await shot(page, 'cli-complete');
    expect(loopback.callbacks).toHaveLength(1);
    const callback = loopback.callbacks[0] ?? new URLSearchParams();
    expect(callback.get('state')).toBe(state);
    const code = callback.get('code') ?? '';
    expect(code.length).toBeGreaterThan(30);

    // The code is the real thing: the CLI's exchange turns it into a working token.
    const exchanged = await fetch(`${bw.url}/api/cli/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code, code_verifier: verifier, redirect_uri: loopback.redirectUri }),
    });
    expect(exchanged.status, await exchanged.clone().text()).toBe(200);
    const { token } = (await exchanged.json()) as { token: string };
    rememberSecret(token);
    const me = await fetch(`${bw.url}/api/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await me.json()) as { email: string }).email).toBe('lou@example.test');
  });

  it('gateway connect: links the provider through the local OAuth server and ends on the connect-complete page', async () => {
    const kim = await bw.signUp('Kim Connect', 'kim@example.test');
    bw.world.useLinearIdentity({ sub: 'linear-kim-9', email: 'kim@tracker.example', name: 'Kim' });
    const { page } = kim;
    const loopback = await listener();
    const state = random();
    const query = new URLSearchParams({ redirect_uri: loopback.redirectUri, state });
    await page.goto(`/cli/connect/linear?${query}`);
    expect(await page.locator('h1').textContent()).toBe('Connect Linear');
    expect(await page.locator('main').textContent()).toContain('kim@example.test');
    await shot(page, 'cli-connect');
    await page.getByRole('button', { name: 'Continue to Linear' }).click();

    await page.waitForURL('**/cli/connect/linear/complete');
    expect(await page.locator('h1').textContent()).toBe('Linear connected');
    expect(await page.getByRole('status').textContent()).toContain('kim@example.test');
    await shot(page, 'cli-connect-complete');
    expect(loopback.callbacks).toHaveLength(1);
    const callback = loopback.callbacks[0] ?? new URLSearchParams();
    expect(callback.get('state')).toBe(state);
    expect(callback.get('provider')).toBe('linear');
    expect(callback.get('status')).toBe('connected');
    const accounts = await bw.world.gateway.services.database.db
      .selectFrom('account')
      .select(['providerId', 'accountId'])
      .where('userId', '=', kim.id)
      .where('providerId', '=', 'linear')
      .execute();
    expect(accounts).toEqual([{ providerId: 'linear', accountId: 'linear-kim-9' }]);

    // The page links on to the Tools tab, where the account shows as linked.
    await page.getByRole('link', { name: 'Open your tools' }).click();
    await page.waitForURL('**/tools');
  });

  it('gateway connect: Cancel tells the loopback and links nothing', async () => {
    const lee = await bw.signUp('Lee Cancels', 'lee@example.test');
    const { page } = lee;
    const loopback = await listener();
    const state = random();
    await page.goto(
      `/cli/connect/linear?${new URLSearchParams({ redirect_uri: loopback.redirectUri, state })}`,
    );
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => loopback.callbacks.length).toBe(1);
    const callback = loopback.callbacks[0] ?? new URLSearchParams();
    expect(Object.fromEntries(callback)).toEqual({
      error: 'access_denied',
      state,
      provider: 'linear',
    });
    const linked = await bw.world.gateway.services.database.db
      .selectFrom('account')
      .select('providerId')
      .where('userId', '=', lee.id)
      .where('providerId', '=', 'linear')
      .execute();
    expect(linked).toEqual([]);
  });
});
