/**
 * Issue 39: after a revoked grant a tool's error named `gateway connect gcp` and then
 * `gateway connect idp-gcp` (the plugin's own provider id), which the CLI does not know. Each
 * "how to connect" sentence a tool call answers names one command; here each one is run by the
 * CLI, in-process, and must start a connect (the browser opens at the gateway's connect page).
 */
import { definePlugin, defineTool, type Plugin } from '@gateway/sdk';
import {
  createLeakCheckedGateway,
  freePort,
  loginAtProvider,
  revokeLinkedGrant,
  startOidcProvider,
} from '@gateway/server/testing';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it, onTestFinished } from 'vitest';
import { z } from 'zod';
import { type CliUser, signInCli } from '#test/support/cli-user.js';
import { registerPlugin, SERVICE_SECRET } from '#test/support/gateway-server.js';
import { hiddenFields } from '#test/support/test-browser.js';
import { runEndpointsCreate } from '../endpoints/index.js';
import { runConnect } from './index.js';

/** A plugin naming the configured `gcp` sign-in by its own id, as plugins do. */
const idp: Plugin = definePlugin({
  id: 'idp',
  name: 'Identity',
  description: 'Reads the signed-in account at the identity provider.',
  authProviders: [{ id: 'idp-gcp', type: 'oauth2', provider: 'gcp', scopes: [] }],
  tools: [
    defineTool({
      path: 'idp.whoami',
      name: 'Who Am I',
      description: 'Uses the identity provider token.',
      inputSchema: z.object({}),
      authProvider: 'idp-gcp',
      async handler(ctx) {
        await ctx.auth.getToken('idp-gcp');
        return 'ok';
      },
    }),
  ],
});

/** The gateway at a port known beforehand (the IdP must know its redirect URI first). */
async function startWorld() {
  const port = await freePort();
  const provider = await startOidcProvider({
    redirectUri: `http://127.0.0.1:${port}/api/auth/oauth2/callback/gcp`,
  });
  const gateway = await createLeakCheckedGateway({
    plugins: [idp],
    env: {
      GCP_CLIENT_ID: provider.clientId,
      GCP_CLIENT_SECRET: provider.clientSecret,
      GCP_ISSUER_URL: provider.issuer,
    },
    configFile: false,
    databaseUrl: ':memory:',
    authSecret: 'cli-test-auth-secret-0123456789abcdef',
    serviceApiSecret: SERVICE_SECRET,
    port,
  });
  onTestFinished(() => gateway.stop());
  const { url } = await gateway.start();
  await registerPlugin(url, 'idp');
  return { provider, gateway, url };
}

/** The person's browser through the gateway's confirm page, the IdP's login, and back. */
function browse(user: CliUser, opened: string[]) {
  let done: Promise<unknown> = Promise.resolve();
  const openBrowser = async (page: string) => {
    opened.push(page);
    done = (async () => {
      const html = await (await user.browser.request(page)).text();
      const posted = await user.browser.request(new URL(page).pathname, {
        form: { ...hiddenFields(html), action: 'connect' },
      });
      const callback = await loginAtProvider(posted.headers.get('location') ?? '');
      await user.browser.follow(await user.browser.request(callback.toString()), callback.href);
    })();
  };
  return { openBrowser, done: () => done };
}

async function mcpClientOf(user: CliUser): Promise<Client> {
  const endpoint = await runEndpointsCreate({ ...user.options(), name: 'hint', json: true });
  const client = new Client({ name: 'connect-hint-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(endpoint.mcpUrl), {
      requestInit: { headers: { authorization: `Bearer ${endpoint.token}` } },
    }),
  );
  onTestFinished(() => client.close());
  return client;
}

async function callTool(client: Client): Promise<string> {
  const result = await client.callTool({ name: 'idp.whoami', arguments: {} });
  const [first] = result.content as { type: string; text: string }[];
  return `${result.isError === true ? 'error: ' : ''}${first?.text ?? ''}`;
}

/** The commands a message names, one per "`gateway connect ...`". */
const commands = (message: string) =>
  [...message.matchAll(/`gateway connect ([^`]+)`/g)].map((match) => match[1] ?? '');

/** Runs `gateway connect <args>` in-process; the pages the browser was sent to. */
async function runCommand(user: CliUser, args: string) {
  const [tool = '', ...rest] = args.split(' ');
  expect(rest).toEqual([]);
  const opened: string[] = [];
  const browser = browse(user, opened);
  const result = await runConnect({
    ...user.options(),
    tool,
    openBrowser: browser.openBrowser,
    timeoutMs: 20_000,
  });
  await browser.done();
  return { opened, result };
}

describe('the connect command a tool error names (issue 39)', () => {
  it('is one command per message, and the CLI starts a connect with it, before and after a revoked grant', async () => {
    const { provider, gateway, url } = await startWorld();
    const ada = await signInCli(url, 'ada@example.test');
    const client = await mcpClientOf(ada);
    // Nothing linked yet.
    const none = await callTool(client);
    expect(none).toMatch(/^error: No credential for "idp-gcp"\./);
    expect(commands(none)).toEqual(['gcp']);
    const first = await runCommand(ada, commands(none)[0] ?? '');
    expect(first.opened[0]).toMatch(new RegExp(`^${url}/cli/connect/gcp\\?`));
    expect(first.result).toMatchObject({ kind: 'generic', toolId: 'gcp', status: 'connected' });
    expect(await callTool(client)).toBe('ok');

    // The grant is revoked at the IdP: the refresh is refused.
    await revokeLinkedGrant(gateway, provider, ada.userId, 'gcp');
    const refused = await callTool(client);
    expect(refused).toMatch(/^error: Your "gcp" sign-in has expired and could not be renewed: /);
    expect(commands(refused)).toEqual(['gcp']);
    const again = await runCommand(ada, commands(refused)[0] ?? '');
    expect(again.opened[0]).toMatch(new RegExp(`^${url}/cli/connect/gcp\\?`));
    expect(again.result).toMatchObject({ kind: 'generic', toolId: 'gcp', status: 'connected' });
    expect(await callTool(client)).toBe('ok');
  });
});
