import { stat } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { cliFailure, signInCli } from '#test/support/cli-user.js';
import { startGateway } from '#test/support/gateway-server.js';
import { runWhoami } from '../whoami/index.js';
import { runLogout } from './index.js';

describe('gateway logout', () => {
  it('revokes the token at the gateway and forgets it here', async () => {
    const { url } = await startGateway();
    const ada = await signInCli(url, 'ada@example.test');
    const options = ada.options();
    await expect(runLogout(options)).resolves.toEqual({ url, signedOut: true, revoked: true });
    expect(options.io.out()).toBe(`✓ Signed out of ${url}; the token is revoked\n`);

    const check = await fetch(`${url}/api/cli/tokens`, {
      headers: { authorization: `Bearer ${ada.token}` },
    });
    expect(check.status).toBe(401);
    // The file held only this credential, so it is gone.
    await expect(stat(`${ada.home}/.config/gateway/credentials.json`)).rejects.toThrow();
    const whoami = await cliFailure(runWhoami(ada.options()));
    expect(whoami.exitCode).toBe(4);

    const again = ada.options();
    await expect(runLogout(again)).resolves.toEqual({ url, signedOut: false, revoked: false });
    expect(again.io.err()).toBe(`Not signed in to ${url}; nothing to do.\n`);
  });

  // Issue 13, item 8: an expired token is dead already; no warning to go and revoke it.
  it('signs out of an expired sign-in without warning that the token may still work', async () => {
    const { url, gateway } = await startGateway();
    const ada = await signInCli(url, 'ada@example.test');
    await gateway.services.database.db
      .updateTable('api_tokens')
      .set({ expires_at: '2026-01-02T03:04:05.000Z' })
      .where('user_id', '=', ada.userId)
      .execute();
    const options = ada.options();
    await expect(runLogout(options)).resolves.toEqual({
      url,
      signedOut: true,
      revoked: false,
      expiredAt: '2026-01-02T03:04:05.000Z',
    });
    expect(options.io.out()).toBe(
      `✓ Signed out of ${url}; the token had expired on 2026-01-02 03:04 UTC\n`,
    );
    expect(options.io.err()).toBe('');
    await expect(stat(`${ada.home}/.config/gateway/credentials.json`)).rejects.toThrow();
  });

  it('forgets the credential even when the gateway cannot be reached, and says so', async () => {
    const { url, gateway } = await startGateway();
    const ada = await signInCli(url, 'ada@example.test');
    await gateway.stop();
    const options = ada.options({ GATEWAY_TOKEN: 'gw_cli_from_ci' });
    await expect(runLogout(options)).resolves.toEqual({ url, signedOut: true, revoked: false });
    expect(options.io.err()).toContain('the gateway did not confirm the token is revoked');
    expect(options.io.err()).toContain('GATEWAY_TOKEN is still set');
    await expect(stat(`${ada.home}/.config/gateway/credentials.json`)).rejects.toThrow();
  });
});
