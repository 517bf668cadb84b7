/**
 * The Tools tab in Debian's chromium: connect an API-key tool (only ever shown masked), nested
 * instances and a confirmed Disconnect, the OAuth connect and disconnect against the local OAuth
 * server, and a provider the server's own key serves. Each test has a user of its own with a
 * role that allows every tool.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rememberSecret } from '#test/support/known-secrets.js';
import {
  type BrowserWorld,
  type Person,
  PHONE,
  providerBlock,
  providerState,
  shot,
  startBrowserWorld,
  textOf,
} from '#test/web/browser-world.js';

const WEATHER_KEY = 'wk-live-7f3a9c0e5b2d41aa-wxyz';
const WORK_KEY = 'wk-work-0d8c1b7e4f2a9e33-k9q2';
const PROJECT_KEY = 'wk-proj-5e1f0a2b3c4d5e6f-p7r8';
for (const secret of [WEATHER_KEY, WORK_KEY, PROJECT_KEY]) rememberSecret(secret);

let bw: BrowserWorld;

beforeAll(async () => {
  bw = await startBrowserWorld();
  // The first account is the admin; the people of these tests are not.
  await bw.signUp('Root Admin', 'root@example.test');
  await bw.api('POST', '/api/policy/roles', {
    id: 'everything',
    name: 'Everything',
    patterns: ['**'],
  });
});

afterAll(async () => {
  await bw?.close();
});

async function person(name: string, email: string): Promise<Person> {
  const someone = await bw.signUp(name, email);
  await bw.api('PUT', `/api/policy/users/${someone.id}/role`, { roleId: 'everything' });
  await someone.page.goto('/tools');
  return someone;
}

describe('the Tools tab in a real browser', () => {
  it('connects an API-key tool from the dialog and only ever shows the key masked', async () => {
    const { page } = await person('Ann Keys', 'ann@example.test');
    expect(await page.locator('[data-plugin]').count()).toBe(5);
    const weather = providerBlock(page, 'weather');
    expect(await providerState(page, 'weather')).toBe('none');
    // By keyboard: Enter opens the dialog with the focus in its first field; Escape closes it.
    const dialog = page.locator('#secret-dialog');
    await weather.getByRole('button', { name: 'Connect' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => dialog.isVisible()).toBe(true);
    expect(await page.locator(':focus').getAttribute('name')).toBe('instanceName');
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.isVisible()).toBe(false);

    await weather.getByRole('button', { name: 'Connect' }).click();
    await expect.poll(() => dialog.isVisible()).toBe(true);
    expect(await dialog.getByLabel(/^Name/).inputValue()).toBe('Default');
    await dialog.getByLabel(/^Name/).fill('Personal');
    await dialog.getByLabel('API key or token').fill(WEATHER_KEY);
    expect(await dialog.getByLabel('API key or token').getAttribute('type')).toBe('password');
    await shot(page, 'api-key-dialog', { fullPage: false });
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.locator('.notice.ok', { hasText: '“Personal”' }).waitFor();
    expect(await providerState(page, 'weather')).toBe('you');
    expect(await textOf(page, '[data-provider="weather"] [data-state]')).toBe('Connected by you');
    expect(await weather.locator('[data-connection="Personal"] code').first().textContent()).toBe(
      '••••••••wxyz',
    );
    expect(await page.content()).not.toContain(WEATHER_KEY);
    await page.reload();
    expect(await page.content()).not.toContain(WEATHER_KEY);
  });

  // Issue 18: after Save the page scrolled to the provider, the message stayed at the top,
  // off-screen; an unknown page was raw JSON; every page asked for a missing /favicon.ico.
  it('shows the saved message in view, its own 404 page, and asks for nothing missing', async () => {
    const someone = await bw.signUp('Cy Scroll', 'cy@example.test', { viewport: PHONE });
    await bw.api('PUT', `/api/policy/users/${someone.id}/role`, { roleId: 'everything' });
    const { page } = someone;
    const missing: string[] = [];
    page.on('response', (response) => {
      if (response.status() === 404) missing.push(response.url());
    });
    await page.goto('/tools');
    const weather = providerBlock(page, 'weather');
    const dialog = page.locator('#secret-dialog');
    await weather.getByRole('button', { name: 'Connect' }).click();
    await dialog.getByLabel(/^Name/).fill('Personal');
    await dialog.getByLabel('API key or token').fill(WEATHER_KEY);
    await dialog.getByRole('button', { name: 'Save' }).click();
    const notice = page.locator('.notice.ok', { hasText: '“Personal”' });
    await notice.waitFor();
    expect(await weather.locator('.notice.ok').count()).toBe(1);
    await expect
      .poll(() =>
        notice.evaluate((element) => {
          const box = element.getBoundingClientRect();
          return box.top >= 0 && box.bottom <= element.ownerDocument.documentElement.clientHeight;
        }),
      )
      .toBe(true);
    expect(await page.evaluate('window.scrollY')).toBeGreaterThan(0);
    expect(missing).toEqual([]);

    const unknown = await page.goto('/no-such-page');
    expect(unknown?.status()).toBe(404);
    expect(await page.locator('h1').textContent()).toBe('Page not found');
    await page.getByRole('link', { name: 'Go to your tools' }).click();
    await page.locator('h1', { hasText: 'Tools' }).waitFor();
    expect(missing).toEqual([`${bw.url}/no-such-page`]);
  });

  it('nests an instance under another and disconnects both after a confirmation', async () => {
    const { page } = await person('Ben Nested', 'ben@example.test');
    const weather = providerBlock(page, 'weather');
    const dialog = page.locator('#secret-dialog');
    await weather.getByRole('button', { name: 'Connect' }).click();
    await dialog.getByLabel(/^Name/).fill('Personal');
    await dialog.getByLabel('API key or token').fill(WEATHER_KEY);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.locator('.notice.ok', { hasText: '“Personal”' }).waitFor();
    await weather.getByRole('button', { name: 'Add instance' }).click();
    expect(await dialog.getByLabel(/^Name/).inputValue()).toBe('');
    await dialog.getByLabel(/^Name/).fill('Work');
    await dialog.getByLabel('API key or token').fill(WORK_KEY);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.locator('.notice.ok', { hasText: '“Work”' }).waitFor();
    await weather.getByRole('button', { name: 'Add an instance nested under Work' }).click();
    expect(await dialog.locator('[data-slot="title"]').textContent()).toContain('“Work”');
    await dialog.getByLabel(/^Name/).fill('Project A');
    await dialog.getByLabel('API key or token').fill(PROJECT_KEY);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.locator('.notice.ok', { hasText: '“Project A”' }).waitFor();
    const work = weather.locator('[data-connection="Work"]');
    expect(await work.locator('[data-connection="Project A"]').count()).toBe(1);
    const html = await page.content();
    for (const key of [WEATHER_KEY, WORK_KEY, PROJECT_KEY]) expect(html).not.toContain(key);
    await shot(page, 'tools');

    // Disconnect asks first, with the focus on Cancel, and says what goes with it.
    await work.getByRole('button', { name: 'Disconnect Work' }).first().click();
    const confirm = page.locator('#confirm-dialog');
    await expect.poll(() => confirm.isVisible()).toBe(true);
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Cancel');
    expect(await confirm.textContent()).toContain('Its 1 nested instance is removed too');
    await shot(page, 'confirm-disconnect', { fullPage: false });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => confirm.isVisible()).toBe(false);
    expect(await work.count()).toBe(1);
    await work.getByRole('button', { name: 'Disconnect Work' }).first().click();
    await confirm.getByRole('button', { name: 'Disconnect' }).click();
    await page.locator('.notice.ok', { hasText: '1 nested instance' }).waitFor();
    expect(await weather.locator('[data-connection]').count()).toBe(1);
    expect(await weather.locator('[data-connection="Personal"]').count()).toBe(1);
  });

  it('connects an OAuth tool through the local OAuth server, then disconnects the account', async () => {
    const cara = await person('Cara OAuth', 'cara@example.test');
    const { page } = cara;
    bw.world.useLinearIdentity({
      sub: 'linear-cara-3',
      email: 'cara@tracker.example',
      name: 'Cara',
    });
    const tracker = providerBlock(page, 'linear');
    expect(await providerState(page, 'linear')).toBe('none');
    await tracker.getByRole('button', { name: 'Connect Linear' }).click();
    await page.waitForURL('**/tools?connected=linear');
    expect(await textOf(page, '.notice.ok')).toBe('Linear connected.');
    expect(await providerState(page, 'linear')).toBe('you');
    expect(await tracker.textContent()).toContain('Your Linear account is linked');
    const vend = () =>
      bw.world.gateway.services.tokens.vend(cara.id, 'linear', {
        authProvider: { id: 'linear', type: 'oauth2', provider: 'linear', scopes: [] },
      });
    expect((await vend()).source).toBe('oauth');
    // Explain names the same credential the call would get: the sign-in account (issue 38).
    const explain = async () => {
      const answer = await cara.context.request.get('/api/explain?tool=tracker.issues.list');
      return ((await answer.json()) as { credential: { source: string } | null }).credential;
    };
    expect(await explain()).toMatchObject({ source: 'oauth', provider: 'linear' });

    await tracker.getByRole('button', { name: 'Disconnect Linear account' }).click();
    const confirm = page.locator('#confirm-dialog');
    await expect.poll(() => confirm.isVisible()).toBe(true);
    expect(await confirm.textContent()).toContain('Disconnect your Linear account?');
    await confirm.getByRole('button', { name: 'Disconnect' }).click();
    await page.locator('.notice.ok', { hasText: 'Linear account disconnected.' }).waitFor();
    expect(await providerState(page, 'linear')).toBe('none');
    expect(await tracker.getByRole('button', { name: 'Connect Linear' }).count()).toBe(1);
    const accounts = await bw.world.gateway.services.database.db
      .selectFrom('account')
      .select('providerId')
      .where('userId', '=', cara.id)
      .execute();
    expect(accounts).toEqual([{ providerId: 'credential' }]);
    expect(await explain()).toMatchObject({ source: 'none', provider: 'linear' });
    await expect(vend()).rejects.toThrow();
  });

  it('shows a provider the server’s own key serves as connected by a server key', async () => {
    const dora = await person('Dora Server', 'dora@example.test');
    const { page } = dora;
    expect(await providerState(page, 'maps')).toBe('server');
    const pill = providerBlock(page, 'maps').locator('[data-state]');
    expect(await pill.textContent()).toBe('Connected by a server key');
    expect(await providerBlock(page, 'maps').textContent()).toContain(
      'The server’s own key serves it',
    );
    // Offered as an override, not a first connection.
    expect(
      await providerBlock(page, 'maps').getByRole('button', { name: 'Use your own key' }).count(),
    ).toBe(1);
    const vended = await bw.world.gateway.services.tokens.vend(dora.id, 'maps', {
      authProvider: { id: 'maps', type: 'api_key', provider: 'maps', scopes: [] },
    });
    expect(vended.source).toBe('api_key');
    // The key itself is never on the page.
    expect(await page.content()).not.toContain(vended.token);
  });

  it('says under each tool which credentials it may obtain: its plugin’s declared providers', async () => {
    const { page } = await person('Eve Manifest', 'eve@example.test');
    const allowed = (path: string) =>
      page.locator(`[data-tool="${path}"] [data-allowed-providers]`).textContent();
    expect(await allowed('weather.forecast.get')).toBe('May use credentials of weather only.');
    expect(await allowed('tracker.issues.list')).toBe('May use credentials of linear only.');
    expect(await allowed('notes.notes.list')).toBe('May use no credentials.');
  });
});
