import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { createTestIo } from '#test/output/test-io.js';
import { cliFailure, memoryKeychain, userEnv } from '#test/support/cli-user.js';
import { startGateway } from '#test/support/gateway-server.js';
import { makeTempDir } from '#test/support/temp-project.js';
import { TestBrowser } from '#test/support/test-browser.js';
import { formatMoment } from '../../output/moment.js';
import { runWhoami } from '../whoami/index.js';
import { runLogin } from './index.js';

async function person(url: string, email = 'ada@example.test') {
  const home = await makeTempDir('gateway-home-');
  const browser = new TestBrowser(url);
  await browser.signUp(email);
  return { home, browser, io: createTestIo({ env: userEnv(home) }) };
}

const credentialsPath = (home: string) => join(home, '.config/gateway/credentials.json');

describe('gateway login', () => {
  it('signs in through the browser end to end and keeps the token in a 0600 file where no keychain answers', async () => {
    const { url } = await startGateway();
    const { home, browser, io } = await person(url);
    const opened: string[] = [];
    const result = await runLogin({
      io,
      url,
      keychain: null,
      openBrowser: async (page) => {
        opened.push(page);
        await browser.submit(page, 'approve');
      },
    });

    // The browser was sent to the authorize page with a loopback redirect, S256 and a state.
    expect(opened).toHaveLength(1);
    const authorize = new URL(opened[0] ?? '');
    expect(authorize.origin + authorize.pathname).toBe(`${url}/cli/authorize`);
    expect(authorize.searchParams.get('redirect_uri')).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/callback$/,
    );
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('state')?.length).toBeGreaterThanOrEqual(16);
    expect(browser.lastPage).toContain('You can close this tab');
    // The URL is printed too, for a browser that does not open.
    expect(io.err()).toContain(opened[0]);

    const file = credentialsPath(home);
    expect(result).toMatchObject({ url, store: 'file', file });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(join(home, '.config/gateway'))).mode & 0o777).toBe(0o700);
    const stored = JSON.parse(await readFile(file, 'utf8')) as {
      credentials: Record<string, { url: string; token: string; userId: string; tokenId: string }>;
    };
    const credential = stored.credentials[url];
    expect(credential).toEqual({
      url,
      token: expect.stringMatching(/^gw_cli_/),
      userId: result.userId,
      tokenId: result.tokenId,
    });
    // The token lasts GATEWAY_CLI_TOKEN_DAYS (90 by default), and the success line says until when.
    const expiresAt = Date.parse(result.expiresAt ?? '');
    expect(expiresAt - Date.now()).toBeGreaterThan(89 * 24 * 60 * 60 * 1000);
    expect(expiresAt - Date.now()).toBeLessThanOrEqual(90 * 24 * 60 * 60 * 1000);
    // Issue 18: the line named the user id, which nobody knows themselves by.
    expect(result.email).toBe('ada@example.test');
    expect(io.out()).toBe(
      `✓ Signed in to ${url} as ada@example.test; the sign-in expires on ${formatMoment(result.expiresAt ?? '')}\n`,
    );
    expect(formatMoment(result.expiresAt ?? '')).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    expect(io.err()).toContain(
      `warning: no OS keychain answered, so the token is stored in ${file} (readable only by you)`,
    );
    expect(io.out() + io.err()).not.toContain(credential?.token);

    // The token works.
    const tokens = await fetch(`${url}/api/cli/tokens`, {
      headers: { authorization: `Bearer ${credential?.token}` },
    });
    expect(tokens.status).toBe(200);
  });

  it('stores the token in the keychain when one answers, and in the file when it does not', async () => {
    const { url } = await startGateway();
    const { home, browser, io } = await person(url);
    const keychain = memoryKeychain();
    const result = await runLogin({
      io,
      url,
      keychain,
      openBrowser: async (page) => void (await browser.submit(page, 'approve')),
    });
    expect(result.store).toBe('keychain');
    expect(JSON.parse(keychain.entries.get(url) ?? '{}')).toMatchObject({
      url,
      userId: result.userId,
    });
    await expect(stat(credentialsPath(home))).rejects.toThrow();
    expect(io.out()).toContain('The token is stored in the OS keychain.');
    expect(io.err()).not.toContain('warning');

    const whoami = createTestIo({ env: userEnv(home) });
    await runWhoami({ io: whoami, keychain, json: true });
    expect(JSON.parse(whoami.out())).toMatchObject({
      url,
      userId: result.userId,
      store: 'keychain',
    });

    // A keychain that fails (locked, no session bus) falls back to the file.
    const other = await person(url, 'bob@example.test');
    const fallback = await runLogin({
      io: other.io,
      url,
      keychain: memoryKeychain({ failing: true }),
      openBrowser: async (page) => void (await other.browser.submit(page, 'approve')),
    });
    expect(fallback.store).toBe('file');
  });

  // The real @napi-rs/keyring on a headless Linux machine: no session bus, so no Secret Service.
  it.runIf(process.platform === 'linux')(
    'falls back from the real OS keychain to the file on headless Linux, and says so',
    async () => {
      vi.stubEnv('DBUS_SESSION_BUS_ADDRESS', undefined);
      vi.stubEnv('XDG_RUNTIME_DIR', undefined);
      vi.stubEnv('DISPLAY', undefined);
      try {
        const { url } = await startGateway();
        const { home, browser, io } = await person(url);
        // No `keychain` option: the default, the OS keychain through @napi-rs/keyring.
        const result = await runLogin({
          io,
          url,
          openBrowser: async (page) => void (await browser.submit(page, 'approve')),
        });
        const file = credentialsPath(home);
        expect(result).toMatchObject({ store: 'file', file });
        expect((await stat(file)).mode & 0o777).toBe(0o600);
        expect(io.err()).toContain(
          `warning: no OS keychain answered, so the token is stored in ${file} (readable only by you)`,
        );
        const whoami = createTestIo({ env: userEnv(home) });
        await runWhoami({ io: whoami, json: true });
        expect(JSON.parse(whoami.out())).toMatchObject({ url, store: 'file', file });
      } finally {
        vi.unstubAllEnvs();
      }
    },
  );

  it('prints what it stored as JSON with --json, warnings on stderr', async () => {
    const { url } = await startGateway();
    const { home, browser, io } = await person(url);
    const result = await runLogin({
      io,
      url,
      keychain: null,
      json: true,
      openBrowser: async (page) => void (await browser.submit(page, 'approve')),
    });
    const file = credentialsPath(home);
    expect(JSON.parse(io.out())).toEqual({
      url,
      userId: result.userId,
      email: 'ada@example.test',
      tokenId: result.tokenId,
      expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      store: 'file',
      file,
    });
    expect(io.err()).toContain(`the token is stored in ${file}`);
  });

  it('refuses a callback whose state does not match, and stops listening', async () => {
    const { url } = await startGateway();
    const { home, io } = await person(url);
    let callback = '';
    let forged: Promise<Response> | undefined;
    const error = await cliFailure(
      runLogin({
        io,
        url,
        keychain: null,
        openBrowser: async (authorizeUrl) => {
          callback = new URL(authorizeUrl).searchParams.get('redirect_uri') ?? '';
          forged = fetch(`${callback}?code=stolen-code&state=not-the-state`);
        },
      }),
    );
    const answer = await forged;
    expect(answer?.status).toBe(400);
    const page = (await answer?.text()) ?? '';
    expect(error.message).toBe(
      'The browser answered a different sign-in request (state mismatch); run `gateway login` again',
    );
    expect(error.exitCode).toBe(1);
    expect(page).toContain('state mismatch');
    await expect(fetch(callback)).rejects.toThrow();
    await expect(stat(credentialsPath(home))).rejects.toThrow();
  });

  it('reports a denial in the browser with exit code 4', async () => {
    const { url } = await startGateway();
    const { browser, io } = await person(url);
    let browsing: Promise<unknown> | undefined;
    const error = await cliFailure(
      runLogin({
        io,
        url,
        keychain: null,
        openBrowser: async (page) => {
          browsing = browser.submit(page, 'deny');
        },
      }),
    );
    await browsing;
    expect(error.exitCode).toBe(4);
    expect(error.message).toBe(
      'Sign-in was denied in the browser; run `gateway login` again to retry',
    );
    // Issue 18: the page showed the terminal's backticks literally.
    expect(browser.lastPage).toContain(
      'Sign-in was denied in the browser; run <code>gateway login</code> again to retry',
    );
    expect(browser.lastPage).not.toContain('`');
    expect(browser.lastPage).toContain('<link rel="icon" href="data:,">');
  });

  it('times out when the browser never comes back', async () => {
    const { url } = await startGateway();
    const { io } = await person(url);
    let callback = '';
    const error = await cliFailure(
      runLogin({
        io,
        url,
        keychain: null,
        timeoutMs: 300,
        openBrowser: async (page) => {
          callback = new URL(page).searchParams.get('redirect_uri') ?? '';
        },
      }),
    );
    expect(error.message).toBe(
      'Timed out after 1 second waiting for the browser; run `gateway login` again',
    );
    await expect(fetch(callback)).rejects.toThrow();
  });

  it('with --no-browser only prints the URL, for a browser elsewhere', async () => {
    const { url } = await startGateway();
    const { browser, io } = await person(url);
    const opened: string[] = [];
    const login = runLogin({
      io,
      url,
      browser: false,
      keychain: null,
      openBrowser: async (page) => void opened.push(page),
    });
    let printed: string | undefined;
    for (let i = 0; i < 100 && printed === undefined; i += 1) {
      printed = /(http:\/\/\S+\/cli\/authorize\?\S+)/.exec(io.err())?.[1];
      if (printed === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(io.err()).toContain('Open this URL in a browser on this computer to sign in');
    expect(io.err()).toMatch(/ssh -L (\d+):127\.0\.0\.1:\1/);
    await browser.submit(printed ?? '', 'approve');
    await expect(login).resolves.toMatchObject({ url, store: 'file' });
    expect(opened).toEqual([]);
  });

  it('revokes the token it replaces when signing in again', async () => {
    const { url } = await startGateway();
    const { home, browser, io } = await person(url);
    const approve = async (page: string) => void (await browser.submit(page, 'approve'));
    await runLogin({ io, url, keychain: null, openBrowser: approve });
    const read = async () =>
      (
        JSON.parse(await readFile(credentialsPath(home), 'utf8')) as {
          credentials: Record<string, { token: string }>;
        }
      ).credentials[url]?.token;
    const first = await read();
    await runLogin({ io, url, keychain: null, openBrowser: approve });
    const second = await read();
    expect(second).not.toBe(first);
    const check = (token: string | undefined) =>
      fetch(`${url}/api/cli/tokens`, { headers: { authorization: `Bearer ${token}` } });
    expect((await check(first)).status).toBe(401);
    expect((await check(second)).status).toBe(200);
  });

  it('says when the gateway cannot be reached, before opening a browser', async () => {
    const home = await makeTempDir('gateway-home-');
    const io = createTestIo({ env: userEnv(home) });
    const opened: string[] = [];
    const error = await cliFailure(
      runLogin({
        io,
        url: 'http://127.0.0.1:9',
        keychain: null,
        openBrowser: async (page) => void opened.push(page),
      }),
    );
    expect(error.message).toBe(
      'Could not reach the gateway at http://127.0.0.1:9; is it running? Pass --url or set GATEWAY_URL',
    );
    expect(opened).toEqual([]);
  });
});
