import { describe, expect, it } from 'vitest';
import {
  cliFailure,
  createServiceAccount,
  revokeTokensOf,
  signInCli,
} from '#test/support/cli-user.js';
import { SERVICE_SECRET, startGateway } from '#test/support/gateway-server.js';
import { main } from '../../main.js';
import { formatMoment } from '../../output/moment.js';
import { runWhoami } from './index.js';

describe('gateway whoami', () => {
  it('says who is signed in, with email and role, where, and which store holds the credential', async () => {
    const { url } = await startGateway();
    // The first user to sign up is the admin.
    await signInCli(url, 'admin@example.test');
    const ada = await signInCli(url, 'ada@example.test');
    const options = ada.options();
    // No --url: the gateway of the last login.
    const result = await runWhoami({ io: options.io, keychain: null });
    const file = `${ada.home}/.config/gateway/credentials.json`;
    expect(result).toEqual({
      url,
      kind: 'user',
      userId: ada.userId,
      email: 'ada@example.test',
      name: 'ada',
      roleId: 'member',
      isAdmin: false,
      store: 'file',
      file,
      token: `gw_cli_••••••••${ada.token.slice(-4)}`,
      tokenExpiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(options.io.out()).toBe(
      `Signed in to ${url}\n` +
        `  user:    ada@example.test (${ada.userId})\n` +
        '  role:    member\n' +
        `  token:   gw_cli_••••••••${ada.token.slice(-4)}, from the credentials file ${file}\n` +
        `  expires: ${formatMoment(result.tokenExpiresAt ?? '')}\n`,
    );

    const json = ada.options();
    await runWhoami({ ...json, json: true });
    expect(JSON.parse(json.io.out())).toEqual(result);
    expect(json.io.out()).not.toContain(ada.token);
  });

  it('lets GATEWAY_TOKEN override the stored credential, and needs nothing else', async () => {
    const { url } = await startGateway();
    const admin = await signInCli(url, 'admin@example.test');
    const bob = await signInCli(url, 'bob@example.test');

    // Bob's home, the admin's token: the admin is who the CLI acts as.
    const overridden = bob.options({ GATEWAY_TOKEN: admin.token });
    await expect(runWhoami({ ...overridden, json: true })).resolves.toEqual({
      url,
      kind: 'user',
      userId: admin.userId,
      email: 'admin@example.test',
      name: 'admin',
      roleId: 'admin',
      isAdmin: true,
      store: 'env',
      token: `gw_cli_••••••••${admin.token.slice(-4)}`,
      tokenExpiresAt: expect.any(String),
    });
    // With GATEWAY_URL and GATEWAY_TOKEN alone, no stored sign-in is needed at all, and the
    // keychain is never opened (on a desktop that could ask to unlock it, in a script).
    const ci = bob.options({ GATEWAY_TOKEN: admin.token, GATEWAY_URL: url });
    const opened: string[] = [];
    const keychain = {
      get: async (account: string) => void opened.push(`get ${account}`),
      set: async (account: string) => void opened.push(`set ${account}`),
      delete: async (account: string) => opened.push(`delete ${account}`) < 0,
    };
    await expect(runWhoami({ io: ci.io, keychain })).resolves.toMatchObject({
      userId: admin.userId,
      store: 'env',
    });
    expect(opened).toEqual([]);
    expect(ci.io.out()).toContain(`user:    admin@example.test (${admin.userId})`);
    expect(ci.io.out()).toContain('from GATEWAY_TOKEN (environment)');

    // GATEWAY_USER_ID naming another user: whom the user commands act for (an admin may).
    const acting = bob.options({ GATEWAY_TOKEN: admin.token, GATEWAY_USER_ID: bob.userId });
    await expect(runWhoami(acting)).resolves.toMatchObject({
      userId: admin.userId,
      actingFor: bob.userId,
    });
    expect(acting.io.out()).toContain(`  acting for: ${bob.userId} (GATEWAY_USER_ID)\n`);

    const rejected = await cliFailure(
      runWhoami(bob.options({ GATEWAY_TOKEN: 'gw_cli_not-a-real-token' })),
    );
    expect(rejected.exitCode).toBe(4);
    expect(rejected.message).toBe(
      `The gateway at ${url} rejected GATEWAY_TOKEN; set a valid token, or unset it and run \`gateway login\``,
    );
  });

  it('names a service account key in GATEWAY_TOKEN, and the service secret', async () => {
    const { url } = await startGateway();
    const admin = await signInCli(url, 'admin@example.test');
    const account = await createServiceAccount(admin, 'nightly-report');
    const options = admin.options({ GATEWAY_TOKEN: account.key });
    await expect(runWhoami(options)).resolves.toEqual({
      url,
      kind: 'service_account',
      userId: null,
      serviceAccountId: account.id,
      name: 'nightly-report',
      roleId: 'member',
      store: 'env',
      token: `gw_sa_••••••••${account.key.slice(-4)}`,
    });
    expect(options.io.out()).toBe(
      `Signed in to ${url}\n` +
        `  service account: nightly-report (${account.id})\n` +
        '  role:            member\n' +
        `  token:           gw_sa_••••••••${account.key.slice(-4)}, from GATEWAY_TOKEN (environment)\n`,
    );
    expect(options.io.out()).not.toContain(account.key);

    const service = admin.options({ GATEWAY_TOKEN: SERVICE_SECRET });
    await expect(runWhoami({ ...service, json: true })).resolves.toMatchObject({
      kind: 'service',
      userId: null,
      store: 'env',
    });
    expect(service.io.out()).not.toContain(SERVICE_SECRET);
  });

  // Issue 13, item 8: CLI tokens expire after GATEWAY_CLI_TOKEN_DAYS.
  it('says in one line, exit 4, when the sign-in expired, and when GATEWAY_TOKEN did', async () => {
    const { url, gateway } = await startGateway();
    const ada = await signInCli(url, 'ada@example.test');
    const expiredAt = '2026-01-02T03:04:05.000Z';
    await gateway.services.database.db
      .updateTable('api_tokens')
      .set({ expires_at: expiredAt })
      .where('user_id', '=', ada.userId)
      .execute();

    const stored = await cliFailure(runWhoami(ada.options()));
    expect(stored.exitCode).toBe(4);
    expect(stored.message).toBe(
      'Your sign-in expired on 2026-01-02 03:04 UTC. Run `gateway login`.',
    );

    // Through the entry point: one line on stderr, exit code 4, no stack, no token.
    const io = ada.options().io;
    expect(await main(['whoami'], io, ada.home, { keychain: null })).toBe(4);
    expect(io.err()).toBe(
      'error: Your sign-in expired on 2026-01-02 03:04 UTC. Run `gateway login`.\n',
    );
    expect(io.out()).toBe('');

    const fromEnv = await cliFailure(runWhoami(ada.options({ GATEWAY_TOKEN: ada.token })));
    expect(fromEnv.exitCode).toBe(4);
    expect(fromEnv.message).toBe(
      'GATEWAY_TOKEN expired on 2026-01-02 03:04 UTC; set a new token, or unset it and run `gateway login`',
    );
  });

  it('shows a CLI token without an expiry (issued before tokens expired) as never expiring', async () => {
    const { url, gateway } = await startGateway();
    const ada = await signInCli(url, 'ada@example.test');
    await gateway.services.database.db
      .updateTable('api_tokens')
      .set({ expires_at: null })
      .where('user_id', '=', ada.userId)
      .execute();
    const options = ada.options();
    await expect(runWhoami(options)).resolves.toMatchObject({ tokenExpiresAt: null });
    expect(options.io.out()).toContain(
      '  expires: never (issued before CLI tokens expired; run `gateway login` for one that does)\n',
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
