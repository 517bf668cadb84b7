/**
 * Issue 32's main case: `mcp-remote` (npm) pointed at Gateway's `/mcp` with no header at all. It
 * discovers the authorization server, registers itself (or is identified by a client ID metadata
 * document served on loopback), and sends the user to sign in; Debian's chromium (playwright-core)
 * signs in with a password on the web app's page and allows the client on the consent page; then
 * the test lists and calls a tool over mcp-remote's stdio.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  serveClientDocument,
  signedInBrowser,
  startOAuthGateway,
} from '#test/mcp-oauth/oauth-kit.js';
import { freePort } from '#test/support/free-port.js';
import { sharedChromium } from '#test/web/browser.js';
import { listEndpoints } from '../mcp-endpoints/index.js';

const MCP_REMOTE = fileURLToPath(
  new URL('../../node_modules/mcp-remote/dist/proxy.js', import.meta.url),
);
const PASSWORD = 'correct horse battery';

/**
 * mcp-remote as an AI client runs it: a child speaking JSON-RPC lines on stdio. With `clientId`,
 * it uses that id (`--static-oauth-client-info`) instead of registering: its own
 * `--client-metadata-url` takes https URLs only, and the test's document is on loopback http.
 */
async function startMcpRemote(url: string, clientId?: string) {
  const configDir = await mkdtemp(join(tmpdir(), 'mcp-remote-'));
  // An empty PATH: mcp-remote must not find a browser of its own; the test is the browser.
  const emptyPath = await mkdtemp(join(tmpdir(), 'no-browser-'));
  const identity =
    clientId === undefined
      ? []
      : ['--static-oauth-client-info', JSON.stringify({ client_id: clientId })];
  const child: ChildProcess = spawn(
    process.execPath,
    [MCP_REMOTE, `${url}/mcp`, String(await freePort()), '--host', '127.0.0.1', ...identity],
    {
      env: { MCP_REMOTE_CONFIG_DIR: configDir, PATH: emptyPath, HOME: configDir },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  onTestFinished(async () => {
    child.kill();
    await rm(configDir, { recursive: true, force: true });
    await rm(emptyPath, { recursive: true, force: true });
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const answers = new Map<number, (message: Record<string, unknown>) => void>();
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  lines.on('line', (line) => {
    try {
      const message = JSON.parse(line) as Record<string, unknown>;
      if (typeof message.id === 'number') answers.get(message.id)?.(message);
    } catch {
      // Not a JSON-RPC line.
    }
  });
  let nextId = 1;
  return {
    stderr: () => stderr,
    async authorizationUrl(): Promise<string> {
      await expect
        .poll(() => /visiting:\s*\n(\S+)/.exec(stderr)?.[1], { timeout: 30_000 })
        .toBeTruthy();
      return /visiting:\s*\n(\S+)/.exec(stderr)?.[1] ?? '';
    },
    request(method: string, params: Record<string, unknown> = {}) {
      const id = nextId++;
      const answer = new Promise<Record<string, unknown>>((resolve) => answers.set(id, resolve));
      child.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      return answer;
    },
    notify(method: string) {
      child.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`);
    },
  };
}

describe('mcp-remote with no header, signing in through the browser', () => {
  it.each(['dynamic client registration', 'a client id metadata document'])(
    'signs in with a password, consents, then lists and calls a tool over stdio (%s)',
    async (registration) => {
      const gw = await startOAuthGateway();
      // The account exists already; the browser below starts signed out.
      await signedInBrowser(gw.url, 'remote@example.test');
      const document =
        registration === 'dynamic client registration'
          ? undefined
          : await serveClientDocument({
              client_name: 'mcp-remote by document',
              redirect_uris: ['http://127.0.0.1/oauth/callback'],
              token_endpoint_auth_method: 'none',
            });
      const remote = await startMcpRemote(gw.url, document?.clientId);
      const authorize = await remote.authorizationUrl();
      expect(new URL(authorize).pathname).toBe('/oauth/authorize');

      const browser = await sharedChromium();
      onTestFinished(() => browser.close());
      const page = await (await browser.newContext()).newPage();
      page.setDefaultTimeout(20_000);
      await page.goto(authorize);
      expect(new URL(page.url()).pathname).toBe('/sign-in');
      await page.getByLabel('Email').fill('remote@example.test');
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: /^Allow / }).waitFor();
      const consentText = await page.textContent('body');
      if (document === undefined) {
        expect(consentText).toContain('Unverified client');
      } else {
        expect(consentText).toContain('mcp-remote by document');
        expect(consentText).toContain(`Identified by ${new URL(document.clientId).host}`);
      }
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.waitForURL((url) => url.pathname === '/oauth/callback');

      const initialized = await remote.request('initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'e2e', version: '1.0.0' },
      });
      expect(initialized.result).toMatchObject({ serverInfo: expect.any(Object) });
      remote.notify('notifications/initialized');
      const listed = await remote.request('tools/list');
      const tools = (listed.result as { tools: { name: string }[] }).tools.map((tool) => tool.name);
      expect(tools).toContain('demo.echo.say');
      const called = await remote.request('tools/call', {
        name: 'demo.echo.say',
        arguments: { text: 'from mcp-remote' },
      });
      expect(called.result).toMatchObject({ structuredContent: { text: 'from mcp-remote' } });

      const { db } = gw.gateway.services.database;
      const [user] = await db.selectFrom('user').select('id').execute();
      const endpoints = await listEndpoints(db, user?.id ?? '');
      expect(endpoints).toEqual([
        expect.objectContaining({
          kind: 'oauth',
          ...(document === undefined
            ? {}
            : { clientId: document.clientId, name: 'mcp-remote by document' }),
        }),
      ]);
      if (document !== undefined) expect(document.hits()).toBeGreaterThan(0);
    },
    120_000,
  );
});
