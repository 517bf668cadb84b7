/**
 * Issue 15 in Debian's chromium: sign-in with `oidc-provider` (a certified OpenID Provider) as
 * the generic provider `gcp`, through its own login and consent pages; then the provider refuses
 * a refresh (invalid_grant), the Tools tab shows Reconnect, and the button brings the tool back.
 */
import { AuthRequiredError } from '@gateway/sdk';
import type { Page } from 'playwright-core';
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  cloudPlugin,
  type OidcWorld,
  revokeAndExpire,
  startOidcWorld,
} from '#test/auth/oidc-world.js';
import { sharedChromium } from '#test/web/browser.js';

/** Walks the provider's login and consent pages until the browser is back on the gateway. */
async function throughProvider(page: Page, world: OidcWorld): Promise<void> {
  for (let step = 0; step < 6; step += 1) {
    await page.waitForLoadState();
    if (page.url().startsWith(world.url)) return;
    const login = page.locator('input[name="login"]');
    if ((await login.count()) > 0) {
      await login.fill('alice');
      await page.locator('input[name="password"]').fill('any');
    }
    // Each submit leaves the page (the next step's page, or the gateway at the end).
    await Promise.all([
      page.waitForNavigation({ waitUntil: 'load' }),
      page.locator('button[type="submit"]').first().click(),
    ]);
  }
  throw new Error(`the provider did not send the browser back: ${page.url()}`);
}

const pill = (page: Page) => page.locator('[data-provider="cloud"] [data-state]');

describe('oidc-provider sign-in and Reconnect in chromium', () => {
  it('signs in with the provider, then shows Reconnect after invalid_grant and reconnects', async () => {
    const world = await startOidcWorld();
    const chromium = await sharedChromium();
    onTestFinished(() => chromium.close());
    const context = await chromium.newContext({ baseURL: world.url });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();

    await page.goto('/sign-in');
    await page.getByRole('button', { name: 'Continue with Google Cloud' }).click();
    await page.waitForURL((url) => url.origin === world.idp.issuer);
    await throughProvider(page, world);
    await page.waitForURL('**/tools');
    expect(await pill(page).textContent()).toBe('Connected by you');
    const me = (await (await page.request.get('/api/me')).json()) as { userId: string };
    const call = () =>
      world.gw.services.tokens.resolverFor(me.userId, cloudPlugin()).getToken('cloud');
    await expect(call()).resolves.toEqual(expect.any(String));

    await revokeAndExpire(world, me.userId);
    const failure = await call().catch((error: unknown) => error);
    expect(AuthRequiredError.isInstance(failure)).toBe(true);
    expect((failure as Error).message).toContain('Reconnect it in the Tools tab');

    await page.reload();
    expect(await pill(page).textContent()).toBe('Needs reconnecting');
    const block = page.locator('[data-provider="cloud"]');
    expect(await block.textContent()).toContain('Google Cloud refused to renew your sign-in');
    await block.getByRole('button', { name: 'Reconnect Google Cloud' }).click();
    await page.waitForURL((url) => url.origin === world.idp.issuer);
    await throughProvider(page, world);
    await page.waitForURL('**/tools?connected=gcp');
    expect(await page.locator('.notice.ok').textContent()).toBe('Google Cloud connected.');
    expect(await pill(page).textContent()).toBe('Connected by you');
    expect(await block.textContent()).not.toContain('refused to renew');
    await expect(call()).resolves.toEqual(expect.any(String));
  }, 60_000);
});
