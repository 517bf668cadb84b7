import { describe, expect, it } from 'vitest';
import { cliFailure, signInCli } from '#test/support/cli-user.js';
import { startGateway } from '#test/support/gateway-server.js';
import { main } from '../../main.js';

// Issue 35, item 6: `gateway token` prints the CLI token, as `gh auth token` does.
describe('gateway token', () => {
  it('prints the stored CLI token alone on a line, and the token works against the API', async () => {
    const { url } = await startGateway();
    const ada = await signInCli(url, 'ada@example.test');
    const options = ada.options();
    // No --url: the gateway of the last login, as every signed-in command.
    const exitCode = await main(['token'], options.io, ada.home, { keychain: null });
    expect(exitCode).toBe(0);
    expect(options.io.out()).toBe(`${ada.token}\n`);
    expect(options.io.err()).toBe('');

    const me = await fetch(`${url}/api/me`, {
      headers: { authorization: `Bearer ${options.io.out().trim()}` },
    });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ kind: 'user', email: 'ada@example.test' });
  });

  it('prints GATEWAY_TOKEN when set, and says how to sign in when there is no token', async () => {
    const { url } = await startGateway();
    const ada = await signInCli(url, 'ada@example.test');
    const overridden = ada.options({ GATEWAY_TOKEN: 'gw_cli_from-the-environment' });
    expect(await main(['token'], overridden.io, ada.home, { keychain: null })).toBe(0);
    expect(overridden.io.out()).toBe('gw_cli_from-the-environment\n');

    const elsewhere = ada.options({ GATEWAY_URL: 'http://127.0.0.1:9' });
    const { runToken } = await import('./index.js');
    const failure = await cliFailure(runToken({ io: elsewhere.io, keychain: null }));
    expect(failure.exitCode).toBe(4);
    expect(failure.message).toBe('Not signed in. Run `gateway login`.');
    expect(elsewhere.io.out()).toBe('');
  });
});
