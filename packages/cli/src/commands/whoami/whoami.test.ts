import { describe, expect, it } from 'vitest';
import { cliFailure, revokeTokensOf, signInCli } from '../../test-support/cli-user.js';
import { startGateway } from '../../test-support/gateway-server.js';
import { runWhoami } from './index.js';

describe('gateway whoami', () => {
  it('says who is signed in, where, and which store holds the credential', async () => {
    const { url } = await startGateway();
    const ada = await signInCli(url, 'ada@example.test');
    const options = ada.options();
    // No --url: the gateway of the last login.
    const result = await runWhoami({ io: options.io, keychain: null });
    const file = `${ada.home}/.config/gateway/credentials.json`;
    expect(result).toEqual({
      url,
      userId: ada.userId,
      store: 'file',
      file,
      token: `gw_cli_••••••••${ada.token.slice(-4)}`,
    });
    expect(options.io.out()).toBe(
      `Signed in to ${url}\n  user:  ${ada.userId}\n  token: gw_cli_••••••••${ada.token.slice(-4)}, from the credentials file ${file}\n`,
    );

    const json = ada.options();
    await runWhoami({ ...json, json: true });
    expect(JSON.parse(json.io.out())).toEqual(result);
    expect(json.io.out()).not.toContain(ada.token);
  });

  it('lets GATEWAY_TOKEN override the stored credential', async () => {
    const { url } = await startGateway();
    const ada = await signInCli(url, 'ada@example.test');
    const bob = await signInCli(url, 'bob@example.test');

    // Ada's home, Bob's token: Bob is who the CLI acts as, once his id is given too.
    const overridden = ada.options({ GATEWAY_TOKEN: bob.token, GATEWAY_USER_ID: bob.userId });
    await expect(runWhoami({ ...overridden, json: true })).resolves.toMatchObject({
      url,
      userId: bob.userId,
      store: 'env',
    });
    // The same token as stored: its user is known without GATEWAY_USER_ID.
    const same = ada.options({ GATEWAY_TOKEN: ada.token });
    await expect(runWhoami(same)).resolves.toMatchObject({ userId: ada.userId, store: 'env' });
    expect(same.io.out()).toContain('from GATEWAY_TOKEN (environment)');
    // With GATEWAY_URL and GATEWAY_TOKEN alone, no stored sign-in is needed at all.
    const ci = bob.options({ GATEWAY_TOKEN: ada.token, GATEWAY_URL: url });
    await expect(runWhoami({ io: ci.io, keychain: null })).resolves.toMatchObject({
      userId: null,
      store: 'env',
    });
    expect(ci.io.out()).toContain('user:  unknown (set GATEWAY_USER_ID)');

    const rejected = await cliFailure(
      runWhoami(ada.options({ GATEWAY_TOKEN: 'gw_cli_not-a-real-token' })),
    );
    expect(rejected.exitCode).toBe(4);
    expect(rejected.message).toBe(
      `The gateway at ${url} rejected GATEWAY_TOKEN; set a valid token, or unset it and run \`gateway login\``,
    );
  });

  it('exits 4 when not signed in, or when the token was revoked', async () => {
    const { url } = await startGateway();
    const ada = await signInCli(url, 'ada@example.test');
    await revokeTokensOf(ada);
    const revoked = await cliFailure(runWhoami(ada.options()));
    expect(revoked.exitCode).toBe(4);
    expect(revoked.message).toBe('Not signed in. Run `gateway login`.');

    const other = await cliFailure(runWhoami({ ...ada.options(), url: 'http://127.0.0.1:9' }));
    expect(other.exitCode).toBe(4);
    expect(other.message).toBe('Not signed in. Run `gateway login`.');
  });
});
