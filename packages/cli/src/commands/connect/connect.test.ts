import { Readable } from 'node:stream';
import { definePlugin, defineTool, type Plugin } from '@gateway/sdk';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { cliFailure, signInCli } from '#test/support/cli-user.js';
import { type RunningGateway, startGateway } from '#test/support/gateway-server.js';
import { startOAuthProvider } from '#test/support/oauth-provider.js';
import { runConnectionsList } from '../connections/index.js';
import { runConnect } from './index.js';

const SECRET = 'sk-live-weather-0123456789abcdef';

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
      inputSchema: z.object({ city: z.string() }),
      authProvider: 'weather',
      async handler() {
        return 'sunny';
      },
    }),
  ],
});

const stdin = (text: string) => Readable.from([text]);

describe('gateway connect, API-key tools', () => {
  it('reads the key from stdin, stores the connection and prints only the masked key', async () => {
    const { url } = await startGateway({ plugins: [weather] });
    const ada = await signInCli(url, 'ada@example.test');
    const options = ada.options();
    const result = await runConnect({
      ...options,
      tool: 'weather',
      secretStdin: true,
      stdin: stdin(`${SECRET}\n`),
    });
    expect(result).toMatchObject({
      kind: 'api_key',
      toolId: 'weather',
      instanceName: 'default',
      team: false,
    });
    if (result.kind !== 'api_key') throw new Error('unreachable');
    expect(result.maskedSecret).not.toContain(SECRET.slice(4, -4));
    expect(options.io.out()).toBe(
      `✓ Connected Weather (weather) as "default": ${result.maskedSecret}\n  connection id: ${result.id}\n`,
    );
    expect(options.io.out() + options.io.err()).not.toContain(SECRET);

    // A second instance, nested under the first, in a workspace, asked for at a "terminal".
    const asked: string[] = [];
    const nested = ada.options();
    await runConnect({
      ...nested,
      tool: 'weather',
      instanceName: 'work',
      parent: result.id,
      workspace: 'acme',
      json: true,
      askSecret: async (message) => {
        asked.push(message);
        return `${SECRET}-work`;
      },
    });
    expect(asked).toEqual(['Weather API key']);
    expect(JSON.parse(nested.io.out())).toMatchObject({ instanceName: 'work', toolId: 'weather' });
    expect(nested.io.out()).not.toContain(SECRET);

    const listed = ada.options();
    const connections = await runConnectionsList({ ...listed, json: true });
    expect(connections).toMatchObject([
      { id: result.id, toolId: 'weather', instanceName: 'default', parentId: null },
      { toolId: 'weather', instanceName: 'work', parentId: result.id, workspaceId: 'acme' },
    ]);
    expect(listed.io.out()).not.toContain(SECRET);
  });

  it('connects for the team as an admin, and refuses a member (exit 4)', async () => {
    const { url, gateway } = await startGateway({ plugins: [weather] });
    const admin = await signInCli(url, 'admin@example.test');
    const member = await signInCli(url, 'member@example.test');
    const options = admin.options();
    await expect(
      runConnect({
        ...options,
        tool: 'weather',
        team: true,
        description: 'The shared forecast key',
        secretStdin: true,
        stdin: stdin(SECRET),
      }),
    ).resolves.toMatchObject({ kind: 'api_key', team: true });
    expect(options.io.out()).toContain('for the team');
    // --description is stored with the connection.
    const stored = await gateway.services.database.db
      .selectFrom('connections')
      .select(['tool_id', 'description'])
      .execute();
    expect(stored).toEqual([{ tool_id: 'weather', description: 'The shared forecast key' }]);
    const denied = await cliFailure(
      runConnect({
        ...member.options(),
        tool: 'weather',
        team: true,
        secretStdin: true,
        stdin: stdin(SECRET),
      }),
    );
    expect(denied.exitCode).toBe(4);
    expect(denied.message).toBe('Not allowed: Only an admin may do this');
  });

  it('explains what is wrong before anything is stored', async () => {
    const { url } = await startGateway({ plugins: [weather] });
    const ada = await signInCli(url, 'ada@example.test');
    const unknown = await cliFailure(
      runConnect({ ...ada.options(), tool: 'wether', secretStdin: true }),
    );
    expect(unknown.exitCode).toBe(1);
    expect(unknown.message).toBe(
      `No tool "wether" to connect at ${url}; connectable here: weather`,
    );

    const noTerminal = await cliFailure(runConnect({ ...ada.options(), tool: 'weather' }));
    expect(noTerminal.exitCode).toBe(2);
    expect(noTerminal.message).toBe(
      'No terminal to ask for the Weather key; pipe it in with --secret-stdin, e.g. `printenv KEY | gateway connect weather --secret-stdin`',
    );
    const empty = await cliFailure(
      runConnect({ ...ada.options(), tool: 'weather', secretStdin: true, stdin: stdin('\n') }),
    );
    expect(empty.exitCode).toBe(2);

    const duplicate = ada.options();
    await runConnect({ ...duplicate, tool: 'weather', secretStdin: true, stdin: stdin(SECRET) });
    const conflict = await cliFailure(
      runConnect({ ...ada.options(), tool: 'weather', secretStdin: true, stdin: stdin(SECRET) }),
    );
    expect(conflict.exitCode).toBe(1);
    expect(conflict.message).toMatch(
      /; pass another --instance-name, or remove that connection first$/,
    );

    const unconfigured = await cliFailure(runConnect({ ...ada.options(), tool: 'github' }));
    expect(unconfigured.exitCode).toBe(2);
    expect(unconfigured.message).toBe(
      `GitHub sign-in is not set up on ${url} (an admin sets GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET on the server); connect it with a token instead: pipe it in with --secret-stdin, e.g. \`printenv TOKEN | gateway connect github --secret-stdin\``,
    );
  });

  // Issue 18: an OAuth tool whose sign-in is not set up was refused, and --secret-stdin with it,
  // while the web app offers "Use a token instead".
  it('takes a token for an OAuth tool whose sign-in is not set up, from stdin or a prompt', async () => {
    const { url } = await startGateway({ plugins: [weather] });
    const ada = await signInCli(url, 'ada@example.test');
    const piped = ada.options();
    const result = await runConnect({
      ...piped,
      tool: 'github',
      secretStdin: true,
      stdin: stdin('ghp_0123456789abcdefghij\n'),
    });
    expect(result).toMatchObject({ kind: 'token', toolId: 'github', instanceName: 'default' });
    if (result.kind !== 'token') throw new Error('unreachable');
    expect(piped.io.out()).toBe(
      `✓ Connected GitHub (github) as "default": ${result.maskedSecret}\n  connection id: ${result.id}\n`,
    );

    const asked: string[] = [];
    const prompted = ada.options();
    await runConnect({
      ...prompted,
      tool: 'github',
      instanceName: 'work',
      askSecret: async (message) => {
        asked.push(message);
        return 'ghp_work_0123456789abcdef';
      },
    });
    expect(asked).toEqual(['GitHub token']);
    expect(prompted.io.err()).toBe(
      `GitHub sign-in is not set up on ${url} (an admin sets GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET on the server); paste a GitHub token instead.\n`,
    );

    const listed = ada.options();
    await runConnectionsList(listed);
    expect(listed.io.out()).toMatch(/\sgithub\s+default\s/);
    expect(listed.io.out()).toMatch(/\sgithub\s+work\s/);
    expect(listed.io.out() + piped.io.out() + prompted.io.out()).not.toContain('ghp_');
  });

  it('exits 4 when not signed in', async () => {
    const { url } = await startGateway({ plugins: [weather] });
    const ada = await signInCli(url, 'ada@example.test');
    const error = await cliFailure(
      runConnect({ ...ada.options(), url: 'http://127.0.0.1:9', tool: 'weather' }),
    );
    expect(error.exitCode).toBe(4);
    expect(error.message).toBe('Not signed in. Run `gateway login`.');
  });
});

/** The OAuth accounts linked to each user, straight from the gateway's database. */
async function linkedAccounts(gateway: RunningGateway['gateway'], providerId: string) {
  return gateway.services.database.db
    .selectFrom('account')
    .select(['userId', 'accountId'])
    .where('providerId', '=', providerId)
    .execute();
}

describe('gateway connect, OAuth tools', () => {
  it('links the account through the browser against a real OAuth server', async () => {
    const idp = await startOAuthProvider({ sub: 'gcp-42', email: 'ops@corp.example', name: 'Ops' });
    const { url, gateway } = await startGateway({ env: idp.gatewayEnv('gcp') });
    const ada = await signInCli(url, 'ada@example.test');
    const options = ada.options();
    let browsing: Promise<URL> | undefined;
    let opened = '';
    const result = await runConnect({
      ...options,
      tool: 'gcp',
      openBrowser: async (page) => {
        opened = page;
        browsing = ada.browser.submit(page, 'connect').then(({ url: end }) => end);
      },
    });
    const end = await browsing;
    expect(result).toEqual({
      kind: 'generic',
      toolId: 'gcp',
      status: 'connected',
      userId: ada.userId,
    });
    expect(options.io.out()).toBe(
      '✓ Connected Google Cloud (gcp) to your account ada@example.test\n',
    );
    expect(opened).toMatch(
      new RegExp(
        `^${url}/cli/connect/gcp\\?redirect_uri=http%3A%2F%2F127\\.0\\.0\\.1%3A\\d+%2Fcallback&state=`,
      ),
    );
    // The browser went through the provider and ended on the CLI's listener.
    expect(end?.toString()).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/callback\?state=.+&provider=gcp&status=connected$/,
    );
    expect(ada.browser.lastPage).toContain('Google Cloud connected');
    // The account is stored for the token's user.
    expect(await linkedAccounts(gateway, 'gcp')).toEqual([
      { userId: ada.userId, accountId: 'gcp-42' },
    ]);

    // Issue 18: the list said "No connections yet" after this.
    const listed = ada.options();
    const connections = await runConnectionsList(listed);
    expect(connections).toMatchObject([
      { kind: 'oauth', toolId: 'gcp', instanceName: 'linked account', maskedSecret: null },
    ]);
    const lines = listed.io.out().split('\n');
    expect(lines[1]).toMatch(/^\S+\s+gcp\s+linked account\s+OAuth\s+-\s+-$/);
    expect(lines[2]).toBe(
      `OAuth accounts are disconnected on the Tools tab of ${url}; \`gateway connections rm\` removes the others.`,
    );

    // With sign-in set up, a token is still taken when asked for with --secret-stdin.
    const token = ada.options();
    await expect(
      runConnect({ ...token, tool: 'gcp', secretStdin: true, stdin: stdin('ya29.0123456789') }),
    ).resolves.toMatchObject({ kind: 'token', toolId: 'gcp' });

    // Connecting again (the same account, linked again) is confirmed too, as JSON.
    const again = ada.options();
    await runConnect({
      ...again,
      tool: 'gcp',
      json: true,
      openBrowser: async (page) => void (await ada.browser.submit(page, 'connect')),
    });
    expect(JSON.parse(again.io.out())).toEqual(result);
  });

  it('fails when the browser is signed in as someone else, whose account then holds the link', async () => {
    const idp = await startOAuthProvider({ sub: 'gcp-44', email: 'ops@corp.example' });
    const { url, gateway } = await startGateway({ env: idp.gatewayEnv('gcp') });
    const ada = await signInCli(url, 'ada@example.test');
    // Bob is signed in to the browser the page opens in; the command line is Ada's.
    const bob = await signInCli(url, 'bob@example.test');
    const options = ada.options();
    const error = await cliFailure(
      runConnect({
        ...options,
        tool: 'gcp',
        openBrowser: async (page) => void (await bob.browser.submit(page, 'connect')),
      }),
    );
    expect(error.exitCode).toBe(1);
    expect(error.message).toBe(
      `The browser linked Google Cloud to another Gateway account than ada@example.test, whom this command line is signed in as; sign in to ${url} as ada@example.test in the browser and run \`gateway connect gcp\` again`,
    );
    expect(options.io.out()).toBe('');
    expect(await linkedAccounts(gateway, 'gcp')).toEqual([
      { userId: bob.userId, accountId: 'gcp-44' },
    ]);
  });

  it('reports a refusal at the provider', async () => {
    const idp = await startOAuthProvider({ sub: 'gcp-43', email: 'ops@corp.example' });
    idp.server.service.once('beforeAuthorizeRedirect', (redirect) => {
      redirect.url.searchParams.delete('code');
      redirect.url.searchParams.set('error', 'access_denied');
    });
    const { url } = await startGateway({ env: idp.gatewayEnv('gcp') });
    const ada = await signInCli(url, 'ada@example.test');
    const error = await cliFailure(
      runConnect({
        ...ada.options(),
        tool: 'gcp',
        openBrowser: async (page) => void (await ada.browser.submit(page, 'connect')),
      }),
    );
    expect(error.exitCode).toBe(1);
    expect(error.message).toBe('Connecting Google Cloud was cancelled in the browser');
  });
});
