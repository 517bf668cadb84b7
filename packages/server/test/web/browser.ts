import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

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
