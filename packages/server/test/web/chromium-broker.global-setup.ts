import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserServer } from 'playwright-core';
import { CHROMIUM_BROKER_ENV, launchChromiumServer } from './browser.js';

/**
 * One chromium for all the browser test files of a run (issue 35: "one browser" per tier),
 * started when the first file asks for it and closed when the run ends. Each test file is a
 * process of its own in the system tier, so the browser runs beside vitest: this setup listens on
 * 127.0.0.1 and answers each request with the browser's WebSocket address, launching it on the
 * first one; `sharedChromium()` (browser.ts) connects there, and each test makes its own
 * contexts. A run without browser tests starts no browser.
 */
export default async function setup(): Promise<() => Promise<void>> {
  let launched: Promise<BrowserServer> | undefined;
  const broker = createServer((_request, response) => {
    launched ??= launchChromiumServer();
    launched.then(
      (server) => response.end(server.wsEndpoint()),
      (error: unknown) => {
        // Launched again by the next file, which fails with the same message if it fails again.
        launched = undefined;
        response.statusCode = 500;
        response.end(error instanceof Error ? error.message : String(error));
      },
    );
  });
  await new Promise<void>((listening) => broker.listen(0, '127.0.0.1', listening));
  const { port } = broker.address() as AddressInfo;
  process.env[CHROMIUM_BROKER_ENV] = `http://127.0.0.1:${port}/`;
  return async () => {
    await new Promise((closed) => broker.close(closed));
    const server = await launched?.catch(() => undefined);
    await server?.close();
  };
}
