import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';

/** Debian's chromium, which CI installs (`apt-get install -y chromium`). */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * Launches Debian's chromium headless. Fails loudly when it is missing: the browser tests are
 * part of the suite and must not skip silently.
 *
 * @throws Error naming the install command when `/usr/bin/chromium` does not exist.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `The web app's browser tests need Debian's chromium at ${CHROMIUM_PATH}: run \`apt-get install -y chromium\` (.ci/run does this in CI)`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
}

/**
 * Walks an `oidc-provider`'s development login and consent pages as `login` until the browser
 * is back at `gateway`.
 */
export async function throughAuthorizationServer(page: Page, gateway: string, login: string) {
  for (let step = 0; step < 6; step += 1) {
    await page.waitForLoadState();
    if (page.url().startsWith(gateway)) return;
    const field = page.locator('input[name="login"]');
    if ((await field.count()) > 0) {
      await field.fill(login);
      await page.locator('input[name="password"]').fill('any');
    }
    await Promise.all([
      page.waitForNavigation({ waitUntil: 'load' }),
      page.locator('button[type="submit"]').first().click(),
    ]);
  }
  throw new Error(`the authorization server did not send the browser back: ${page.url()}`);
}
