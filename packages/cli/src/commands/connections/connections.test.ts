import { Readable } from 'node:stream';
import { definePlugin, defineTool, type Plugin } from '@gateway/sdk';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  cliFailure,
  createServiceAccount,
  revokeTokensOf,
  signInCli,
} from '#test/support/cli-user.js';
import { startGateway } from '#test/support/gateway-server.js';
import { startOAuthProvider } from '#test/support/oauth-provider.js';
import { runConnect } from '../connect/index.js';
import { runConnectionsList, runConnectionsRm } from './index.js';

const weather: Plugin = definePlugin({
  id: 'weather',
  name: 'Weather',
  description: 'Forecasts.',
  authProviders: [{ id: 'weather', type: 'api_key', provider: 'weather', scopes: [] }],
  tools: [
    defineTool({
      path: 'weather.forecast.get',
      name: 'Get Forecast',
      description: 'Gets a forecast.',
      inputSchema: z.object({}),
      authProvider: 'weather',
      async handler() {
        return 'sunny';
      },
    }),
  ],
});

async function setUp() {
  const { url } = await startGateway({ plugins: [weather] });
  const admin = await signInCli(url, 'admin@example.test');
  const ada = await signInCli(url, 'ada@example.test');
  const connect = async (
    user: typeof ada,
    instanceName: string,
    more: { parent?: string; team?: boolean } = {},
  ) => {
    const result = await runConnect({
      ...user.options(),
      tool: 'weather',
      instanceName,
      secretStdin: true,
      stdin: Readable.from(['sk-0123456789abcdef']),
      ...more,
    });
    if (result.kind !== 'api_key') throw new Error('expected an API-key connection');
    return result.id;
  };
  return { url, admin, ada, connect };
}

describe('gateway connections', () => {
  it('lists connections, then removes one with everything nested below it', async () => {
    const { ada, connect } = await setUp();
    const empty = ada.options();
    await expect(runConnectionsList(empty)).resolves.toEqual([]);
    expect(empty.io.out()).toBe('No connections yet; add one with `gateway connect <tool>`.\n');

    const parent = await connect(ada, 'default');
    const child = await connect(ada, 'nested', { parent });
    const listed = ada.options();
    await runConnectionsList(listed);
    const lines = listed.io.out().split('\n');
    expect(lines[0]).toMatch(/^ID\s+TOOL\s+NAME\s+SECRET\s+WORKSPACE\s+PARENT$/);
    expect(lines[1]).toMatch(new RegExp(`^${parent}\\s+weather\\s+default\\s+\\S+\\s+-\\s+-$`));
    expect(lines[2]).toMatch(
      new RegExp(`^${child}\\s+weather\\s+nested\\s+\\S+\\s+-\\s+${parent}$`),
    );
    expect(listed.io.out()).not.toContain('sk-0123456789abcdef');

    const removed = ada.options();
    await expect(runConnectionsRm({ ...removed, id: parent })).resolves.toEqual([parent, child]);
    expect(removed.io.out()).toBe(`✓ Removed connection ${parent} and 1 nested below it\n`);
    const json = ada.options();
    await runConnectionsList({ ...json, json: true });
    expect(JSON.parse(json.io.out())).toEqual({ connections: [], reconnect: [] });
  });

  it('answers 404 with exit 1, and another user’s connection is not found either', async () => {
    const { admin, ada, connect } = await setUp();
    const adas = await connect(ada, 'default');
    const missing = await cliFailure(
      runConnectionsRm({ ...ada.options(), id: '00000000-0000-4000-8000-000000000000' }),
    );
    expect(missing.exitCode).toBe(1);
    expect(missing.message).toBe(
      'No connection 00000000-0000-4000-8000-000000000000; see `gateway connections list`',
    );
    // The admin's own connections do not include Ada's.
    const notTheirs = await cliFailure(runConnectionsRm({ ...admin.options(), id: adas }));
    expect(notTheirs.exitCode).toBe(1);
  });

  it('manages team connections as an admin; a member may list but not remove (exit 4)', async () => {
    const { admin, ada, connect } = await setUp();
    const id = await connect(admin, 'shared', { team: true });
    const asAdmin = admin.options();
    await runConnectionsList({ ...asAdmin, team: true, json: true });
    expect(JSON.parse(asAdmin.io.out()).connections).toMatchObject([
      {
        id,
        toolId: 'weather',
        instanceName: 'shared',
        team: true,
        maskedSecret: expect.any(String),
      },
    ]);
    const asMember = ada.options();
    await runConnectionsList({ ...asMember, team: true, json: true });
    expect(JSON.parse(asMember.io.out()).connections).toMatchObject([{ id, maskedSecret: null }]);

    const forbidden = await cliFailure(runConnectionsRm({ ...ada.options(), id, team: true }));
    expect(forbidden.exitCode).toBe(4);
    expect(forbidden.message).toBe('Not allowed: Only an admin may do this');
    await expect(runConnectionsRm({ ...admin.options(), id, team: true })).resolves.toEqual([id]);
  });

  it('exits 4 with "Not signed in" once the token is revoked', async () => {
    const { ada } = await setUp();
    await revokeTokensOf(ada);
    const error = await cliFailure(runConnectionsList(ada.options()));
    expect(error.exitCode).toBe(4);
    expect(error.message).toBe('Not signed in. Run `gateway login`.');
  });

  it('works with GATEWAY_TOKEN alone: the gateway says whose it is', async () => {
    const { admin, ada } = await setUp();
    // The admin's machine, Ada's token, no GATEWAY_USER_ID: Ada's connections.
    const ci = () => admin.options({ GATEWAY_TOKEN: ada.token });
    const created = await runConnect({
      ...ci(),
      tool: 'weather',
      instanceName: 'CI',
      secretStdin: true,
      stdin: Readable.from(['sk-ci-0123456789']),
    });
    if (created.kind !== 'api_key') throw new Error('expected an API-key connection');
    const listed = await runConnectionsList(ci());
    expect(listed.map((item) => [item.id, item.instanceName])).toEqual([[created.id, 'CI']]);
    await expect(runConnectionsList(ada.options())).resolves.toHaveLength(1);
    await expect(runConnectionsList(admin.options())).resolves.toEqual([]);
    await expect(runConnectionsRm({ ...ci(), id: created.id })).resolves.toEqual([created.id]);
  });

  it('refuses a service account key in GATEWAY_TOKEN in one line, before asking for a key', async () => {
    const { admin } = await setUp();
    const { key } = await createServiceAccount(admin, 'nightly-report');
    const message =
      'GATEWAY_TOKEN is a service account key; user commands need a CLI token from `gateway login`';
    const listed = await cliFailure(runConnectionsList(admin.options({ GATEWAY_TOKEN: key })));
    expect([listed.exitCode, listed.message]).toEqual([4, message]);
    const connected = await cliFailure(
      runConnect({
        ...admin.options({ GATEWAY_TOKEN: key }),
        tool: 'weather',
        askSecret: async () => {
          throw new Error('asked for a key although the token cannot store it');
        },
      }),
    );
    expect([connected.exitCode, connected.message]).toEqual([4, message]);
  });

  // Issue 15: after the provider refuses a refresh (invalid_grant), the list says so and names
  // the exact command that reconnects, which `gateway connect` accepts.
  it('names a linked account the provider refused to renew, with the command that reconnects it', async () => {
    const idp = await startOAuthProvider({ sub: 'gcp-77', email: 'ops@corp.example' });
    let refuse = false;
    idp.server.service.on('beforeResponse', (response, req) => {
      if (refuse && req.body.grant_type === 'refresh_token') {
        response.statusCode = 400;
        response.body = { error: 'invalid_grant', error_description: 'refresh token revoked' };
      }
    });
    const { url, gateway } = await startGateway({ env: idp.gatewayEnv('gcp') });
    const ada = await signInCli(url, 'ada@example.test');
    const connect = () =>
      runConnect({
        ...ada.options(),
        tool: 'gcp',
        openBrowser: async (page) => void (await ada.browser.submit(page, 'connect')),
      });
    await connect();
    refuse = true;
    const { db } = gateway.services.database;
    await db
      .updateTable('account')
      .set({ accessTokenExpiresAt: new Date(Date.now() - 1000) })
      .where('providerId', '=', 'gcp')
      .execute();
    const failure = await gateway.services.tokens.vend(ada.userId, 'gcp').catch((e: unknown) => e);
    expect(String(failure)).toContain('`gateway connect gcp`');

    const listed = ada.options();
    await runConnectionsList(listed);
    // The linked account is listed, and after the table, what to run about it.
    expect(listed.io.out()).toMatch(/\n\S+ +gcp +linked account +OAuth /);
    expect(listed.io.out()).toMatch(
      /\n! Your gcp account needs reconnecting: the provider refused to renew your sign-in\. Run `gateway connect gcp`\.\n$/,
    );
    const json = ada.options();
    await runConnectionsList({ ...json, json: true });
    expect(JSON.parse(json.io.out())).toEqual({
      connections: [expect.objectContaining({ kind: 'oauth', toolId: 'gcp' })],
      reconnect: [
        {
          providerId: 'gcp',
          accountId: expect.any(String),
          command: 'gateway connect gcp',
          reason: 'refused',
        },
      ],
    });

    // The command it names works, and the list is clear afterwards.
    refuse = false;
    await connect();
    const after = ada.options();
    await runConnectionsList(after);
    expect(after.io.out()).toMatch(/\n\S+ +gcp +linked account +OAuth /);
    expect(after.io.out()).not.toContain('needs reconnecting');
    await expect(gateway.services.tokens.vend(ada.userId, 'gcp')).resolves.toMatchObject({
      source: 'oauth',
    });
  });
});
