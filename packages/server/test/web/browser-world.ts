import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { rememberSecret } from '../support/known-secrets.js';
import { TEST_SERVICE_SECRET } from '../support/test-gateway.js';
import { sharedChromium } from './browser.js';
import { startWebTestWorld, type WebTestWorld } from './web-test-gateway.js';

/** Where the browser tests save their screenshots (git-ignored). */
export const SCREENSHOTS = fileURLToPath(
  new URL('../../../../.test-artifacts/screenshots/', import.meta.url),
);

/** The password of every account the browser tests make. */
export const PASSWORD = 'correct horse battery staple';

/** The desktop viewport of the screenshots in docs/web.md. */
export const DESKTOP = { width: 1024, height: 720 } as const;

/** A phone's width (and the screenshots of the phone layout). */
export const PHONE = { width: 375, height: 740 } as const;

/** Someone signed in to the gateway in a browser context of their own. */
export interface Person {
  id: string;
  name: string;
  email: string;
  context: BrowserContext;
  page: Page;
}

/** One test file's gateway, local OAuth server and chromium. */
export interface BrowserWorld {
  world: WebTestWorld;
  url: string;
  browser: Browser;
  /** A new, signed-out browser context (its own cookies) and page. */
  visitor(options?: VisitorOptions): Promise<{ context: BrowserContext; page: Page }>;
  /** Creates an account through better-auth's API in a new context, which it signs in. */
  signUp(name: string, email: string, options?: VisitorOptions): Promise<Person>;
  /** Calls the gateway's JSON API with `SERVICE_API_SECRET` (set-up: roles, assignments). */
  api(method: string, path: string, body?: unknown): Promise<unknown>;
  /** An MCP SDK client (v1) with no elicitation capability, closed with the world. */
  mcp(token: string): Promise<Client>;
  close(): Promise<void>;
}

/** Options of a new browser context. */
export interface VisitorOptions {
  viewport?: { width: number; height: number };
  permissions?: string[];
}

/**
 * Starts a web test world and chromium for one test file. Made for `beforeAll`; the caller
 * closes it in `afterAll`. Each test makes the people it needs, so one failing test leaves the
 * next one's starting point alone.
 */
export async function startBrowserWorld(): Promise<BrowserWorld> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const world = await startWebTestWorld();
  let browser: Browser;
  try {
    browser = await sharedChromium();
  } catch (error) {
    await world.close();
    throw error;
  }
  const contexts: BrowserContext[] = [];
  const clients: Client[] = [];

  const visitor = async (options: VisitorOptions = {}) => {
    const context = await browser.newContext({
      baseURL: world.url,
      viewport: options.viewport ?? DESKTOP,
      ...(options.permissions === undefined ? {} : { permissions: options.permissions }),
    });
    // Well inside the test's own timeout, so a stuck step fails with the step's own message.
    context.setDefaultTimeout(10_000);
    // A page load waits longer: the first one of a file timed out at 10 s at load 45.
    context.setDefaultNavigationTimeout(30_000);
    contexts.push(context);
    return { context, page: await context.newPage() };
  };

  return {
    world,
    url: world.url,
    browser,
    visitor,
    async signUp(name, email, options) {
      const { context, page } = await visitor(options);
      const res = await context.request.post('/api/auth/sign-up/email', {
        data: { name, email, password: PASSWORD },
        headers: { origin: world.url },
      });
      if (!res.ok()) throw new Error(`sign-up of ${email} answered ${res.status()}`);
      const { user } = (await res.json()) as { user: { id: string } };
      return { id: user.id, name, email, context, page };
    },
    async api(method, path, body) {
      const res = await fetch(`${world.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${TEST_SERVICE_SECRET}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
      return text === '' ? undefined : JSON.parse(text);
    },
    async mcp(token) {
      rememberSecret(token);
      const client = new Client({ name: 'web-e2e', version: '1.0.0' }, { capabilities: {} });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${world.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      clients.push(client);
      return client;
    },
    async close() {
      for (const client of clients) await client.close().catch(() => {});
      for (const context of contexts) await context.close().catch(() => {});
      await browser.close();
      await world.close();
    },
  };
}

/**
 * Saves a screenshot of `page` as `<name>.png` under {@link SCREENSHOTS}: the whole page, or
 * only the viewport (`fullPage: false`), which suits an open modal dialog.
 */
export async function shot(page: Page, name: string, options = { fullPage: true }): Promise<void> {
  await page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: options.fullPage });
}

/** The block of auth provider `id` on the Tools tab. */
export function providerBlock(page: Page, id: string): Locator {
  return page.locator(`[data-provider="${id}"]`);
}

/** The state pill's value (`you`, `team`, `server`, `none`) of provider `id` on the Tools tab. */
export function providerState(page: Page, id: string): Promise<string | null> {
  return providerBlock(page, id).locator('[data-state]').getAttribute('data-state');
}

/** The trimmed text of the element `selector`, e.g. a token shown once. */
export async function textOf(page: Page, selector: string): Promise<string> {
  return ((await page.locator(selector).textContent()) ?? '').trim();
}
