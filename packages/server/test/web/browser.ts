import { existsSync } from 'node:fs';
import { type Browser, type BrowserServer, chromium, type Page } from 'playwright-core';

/** Debian's chromium, which CI installs (`apt-get install -y chromium`). */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * The variable through which a run's chromium broker (`chromium-broker.global-setup.ts`) tells
 * the test files where to ask for the shared browser.
 */
export const CHROMIUM_BROKER_ENV = 'GATEWAY_TEST_CHROMIUM_BROKER';

const LAUNCH_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];

/** @throws Error naming the install command when `/usr/bin/chromium` does not exist. */
function launchOptions() {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `The web app's browser tests need Debian's chromium at ${CHROMIUM_PATH}: run \`apt-get install -y chromium\` (.ci/run does this in CI)`,
    );
  }
  return { executablePath: CHROMIUM_PATH, args: LAUNCH_ARGS };
}

/**
 * Launches Debian's chromium headless, for this process alone. Fails loudly when it is missing:
 * the browser tests are part of the suite and must not skip silently.
 *
 * @throws Error naming the install command when `/usr/bin/chromium` does not exist.
 */
async function launchChromium(): Promise<Browser> {
  return chromium.launch(launchOptions());
}

/** Launches Debian's chromium headless for other processes to connect to (the run's broker). */
export async function launchChromiumServer(): Promise<BrowserServer> {
  return chromium.launchServer(launchOptions());
}

/**
 * A connection to the run's one chromium (launched by the broker of the system tier when a file
 * first asks), or a chromium of this process's own when no broker runs (a file run outside the
 * tier). Each test makes its own contexts in it; `close()` closes this file's connection and
 * contexts, and leaves the browser to the other files.
 *
 * @throws Error when the broker could not launch chromium, with its reason.
 */
export async function sharedChromium(): Promise<Browser> {
  const broker = process.env[CHROMIUM_BROKER_ENV];
  if (broker === undefined) return launchChromium();
  const response = await fetch(broker);
  const text = await response.text();
  if (!response.ok) throw new Error(`chromium did not start: ${text}`);
  return chromium.connect(text);
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
