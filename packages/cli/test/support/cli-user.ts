import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { CliError } from '../../src/cli-error.js';
import { runLogin } from '../../src/commands/login/index.js';
import type { Keychain } from '../../src/credentials/keychain.js';
import { createTestIo, type TestIo } from '../output/test-io.js';
import { makeTempDir } from './temp-project.js';
import { TestBrowser } from './test-browser.js';

// Test-only: a person using the CLI: a temporary home folder, a browser, and a sign-in.

/**
 * The environment of a CLI user whose home is `home`: nothing of the developer's own settings
 * (config folder, gateway variables) leaks in.
 */
export function userEnv(home: string, extra: Record<string, string | undefined> = {}) {
  return {
    HOME: home,
    USERPROFILE: undefined,
    XDG_CONFIG_HOME: undefined,
    GATEWAY_URL: undefined,
    GATEWAY_TOKEN: undefined,
    GATEWAY_USER_ID: undefined,
    ...extra,
  };
}

/** A keychain held in memory, for the keychain path; `failing` makes every call reject. */
export function memoryKeychain(options: { failing?: boolean } = {}): Keychain & {
  entries: Map<string, string>;
} {
  const entries = new Map<string, string>();
  const check = () => {
    if (options.failing) throw new Error('Platform failure: no Secret Service on the bus');
  };
  return {
    entries,
    async get(account) {
      check();
      return entries.get(account);
    },
    async set(account, secret) {
      check();
      entries.set(account, secret);
    },
    async delete(account) {
      check();
      return entries.delete(account);
    },
  };
}

/** A signed-in CLI user of the gateway at `url`. */
export interface CliUser {
  url: string;
  home: string;
  userId: string;
  /** The CLI token, as stored in the credentials file. */
  token: string;
  browser: TestBrowser;
  /** What a signed-in command takes: a fresh Io in this user's environment, the URL, no keychain. */
  options(extraEnv?: Record<string, string | undefined>): {
    io: TestIo;
    url: string;
    keychain: null;
  };
}

/**
 * Signs `email` up in a browser and runs `gateway login` end to end (the browser approves), with
 * no keychain, so the credential lands in the user's temporary credentials file.
 */
export async function signInCli(url: string, email: string): Promise<CliUser> {
  const home = await makeTempDir('gateway-home-');
  const browser = new TestBrowser(url);
  await browser.signUp(email);
  const io = createTestIo({ env: userEnv(home) });
  const login = await runLogin({
    io,
    url,
    keychain: null,
    openBrowser: async (page) => {
      await browser.submit(page, 'approve');
    },
  });
  const file = JSON.parse(
    await readFile(join(home, '.config/gateway/credentials.json'), 'utf8'),
  ) as { credentials: Record<string, { token: string }> };
  const token = file.credentials[url]?.token ?? '';
  return {
    url,
    home,
    userId: login.userId,
    token,
    browser,
    options: (extraEnv = {}) => ({
      io: createTestIo({ env: userEnv(home, extraEnv) }),
      url,
      keychain: null,
    }),
  };
}

/** The CliError `promise` rejects with (fails the test when it resolves or throws another). */
export async function cliFailure(promise: Promise<unknown>): Promise<CliError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!CliError.isInstance(error)) throw new Error(`expected a CliError, got ${String(error)}`);
  return error;
}

/** Revokes `user`'s CLI token behind the CLI's back, so the gateway answers 401. */
export async function revokeTokensOf(user: CliUser): Promise<void> {
  const list = (await (
    await fetch(`${user.url}/api/cli/tokens`, {
      headers: { authorization: `Bearer ${user.token}` },
    })
  ).json()) as { tokens: { id: string }[] };
  for (const { id } of list.tokens) {
    const response = await fetch(`${user.url}/api/cli/tokens/${id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${user.token}` },
    });
    expect(response.status).toBe(200);
  }
}

/**
 * Creates a service account with `roleId` as the admin `admin` (`POST /api/service-accounts`) and
 * returns its id and `gw_sa_` key.
 */
export async function createServiceAccount(
  admin: CliUser,
  name: string,
  roleId = 'member',
): Promise<{ id: string; key: string }> {
  const response = await fetch(`${admin.url}/api/service-accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name, roleId }),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string; key: string };
}
