import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTestIo } from '#test/output/test-io.js';
import { cliFailure, memoryKeychain, userEnv } from '#test/support/cli-user.js';
import { makeTempDir } from '#test/support/temp-project.js';
import { CredentialStore } from './credential-store.js';
import { configDir } from './paths.js';
import { loadSession, resolveServerUrl } from './session.js';
import { writeDefaultUrl } from './settings.js';

const ada = { url: 'https://gw.example.com', token: 'gw_cli_ada', userId: 'u-ada', tokenId: 't1' };
const bob = { url: 'http://127.0.0.1:8787', token: 'gw_cli_bob', userId: 'u-bob' };

describe('the credential store', () => {
  it('keeps one credential per gateway in a 0600 file, under XDG_CONFIG_HOME when set', async () => {
    const home = await makeTempDir();
    const xdg = await makeTempDir();
    const env = userEnv(home, { XDG_CONFIG_HOME: xdg });
    expect(configDir(env)).toBe(join(xdg, 'gateway'));
    const store = new CredentialStore({ env, keychain: null });
    await expect(store.save(ada)).resolves.toEqual({
      source: 'file',
      file: join(xdg, 'gateway/credentials.json'),
    });
    await store.save(bob);
    expect((await stat(store.file)).mode & 0o777).toBe(0o600);
    await expect(store.load(ada.url)).resolves.toEqual({
      credential: ada,
      source: 'file',
      file: store.file,
    });
    expect(await store.forget(ada.url)).toBe(true);
    expect(await store.load(ada.url)).toBeUndefined();
    expect(JSON.parse(await readFile(store.file, 'utf8'))).toEqual({
      credentials: { [bob.url]: bob },
    });
    // A relative XDG_CONFIG_HOME is ignored, as the XDG spec says.
    expect(configDir(userEnv(home, { XDG_CONFIG_HOME: 'relative' }))).toBe(
      join(home, '.config/gateway'),
    );
  });

  it('prefers the keychain and removes the copy in the file when it moves there', async () => {
    const env = userEnv(await makeTempDir());
    await new CredentialStore({ env, keychain: null }).save(ada);
    const keychain = memoryKeychain();
    const store = new CredentialStore({ env, keychain });
    await expect(store.load(ada.url)).resolves.toMatchObject({ source: 'file' });
    await expect(store.save(ada)).resolves.toEqual({ source: 'keychain' });
    await expect(store.load(ada.url)).resolves.toEqual({ credential: ada, source: 'keychain' });
    await expect(stat(store.file)).rejects.toThrow();
    expect(await store.forget(ada.url)).toBe(true);
    expect(keychain.entries.size).toBe(0);
  });

  it('names the file and what to do when it is not JSON', async () => {
    const env = userEnv(await makeTempDir());
    const store = new CredentialStore({ env, keychain: null });
    await store.save(ada);
    await writeFile(store.file, '{ not json');
    const error = await cliFailure(store.load(ada.url));
    expect(error.message).toBe(
      `${store.file} is not valid JSON; delete it and run \`gateway login\` again`,
    );
  });
});

describe('the session', () => {
  it('takes --url, then GATEWAY_URL, then the last login, then the local default', async () => {
    const home = await makeTempDir();
    const io = (extra: Record<string, string> = {}) => createTestIo({ env: userEnv(home, extra) });
    expect(await resolveServerUrl(io(), undefined)).toBe('http://127.0.0.1:8787');
    await writeDefaultUrl(io().env, 'https://gw.example.com');
    expect(await resolveServerUrl(io(), undefined)).toBe('https://gw.example.com');
    expect(await resolveServerUrl(io({ GATEWAY_URL: 'https://env.example.com/' }), undefined)).toBe(
      'https://env.example.com',
    );
    expect(
      await resolveServerUrl(io({ GATEWAY_URL: 'https://env.example.com' }), 'http://x:1/gw/'),
    ).toBe('http://x:1/gw');
    const bad = await cliFailure(resolveServerUrl(io(), 'gateway.example.com'));
    expect(bad.exitCode).toBe(2);
    expect(bad.message).toBe(
      '--url is not a URL: gateway.example.com; expected e.g. https://gateway.example.com',
    );
    const ftp = await cliFailure(resolveServerUrl(io({ GATEWAY_URL: 'ftp://x' }), undefined));
    expect(ftp.message).toBe('GATEWAY_URL must be an http:// or https:// URL, not ftp://x');
  });

  it('lets GATEWAY_TOKEN override both stores, reading them only when asked for the user', async () => {
    const home = await makeTempDir();
    const keychain = memoryKeychain();
    await new CredentialStore({ env: userEnv(home), keychain }).save(ada);
    const reads: string[] = [];
    const watched = {
      ...keychain,
      get: (account: string) => {
        reads.push(account);
        return keychain.get(account);
      },
    };
    const withToken = (token: string) =>
      loadSession({
        io: createTestIo({ env: userEnv(home, { GATEWAY_TOKEN: token, GATEWAY_URL: ada.url }) }),
        keychain: watched,
      });

    const ci = await withToken('gw_cli_ci');
    expect(ci).toEqual({
      url: ada.url,
      token: 'gw_cli_ci',
      userId: undefined,
      storedUserId: expect.any(Function),
      source: 'env',
    });
    // A command that never needs the user (whoami, register) never opens the keychain.
    expect(reads).toEqual([]);
    // Another token than the stored one: the stored user is not this token's.
    await expect(ci?.storedUserId?.()).resolves.toBeUndefined();
    expect(reads).toEqual([ada.url]);
    // The stored sign-in's own token: its user, without asking the gateway.
    await expect((await withToken(ada.token))?.storedUserId?.()).resolves.toBe(ada.userId);
  });
});
