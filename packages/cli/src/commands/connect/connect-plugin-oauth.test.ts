/**
 * Issue 34: `gateway connect <id>` for a plugin's own OAuth provider. The browser goes through
 * the gateway's confirm page and the provider (`oauth2-mock-server`, the plugin's explicit
 * endpoints) back to the gateway's callback and the CLI's loopback; the tokens become the user's
 * connection, and the plugin's tool calls its API with them through `ctx.auth.fetch`.
 */
import { defineAuthProviders, definePlugin, defineToolFor } from '@gateway/sdk';
import { startFakeUpstream } from '@gateway/sdk/testing';
import { rememberSecret } from '@gateway/server/testing';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it, onTestFinished } from 'vitest';
import { z } from 'zod';
import { signInCli } from '#test/support/cli-user.js';
import { registerPlugin, startGateway } from '#test/support/gateway-server.js';
import { startOAuthProvider } from '#test/support/oauth-provider.js';
import { runEndpointsCreate } from '../endpoints/index.js';
import { runConnect } from './index.js';

async function world() {
  const idp = await startOAuthProvider({ sub: 'notion-user-7' });
  const tokens: string[] = [];
  idp.server.service.on('beforeResponse', (response) => {
    const body = response.body as { access_token?: unknown };
    if (typeof body.access_token === 'string') {
      // The leak check fails the file should a log line or an output hold it.
      rememberSecret(body.access_token);
      tokens.push(body.access_token);
    }
  });
  const api = await startFakeUpstream(() => ({ body: { pages: 3 } }), {
    cleanup: onTestFinished,
  });
  const authProviders = defineAuthProviders([
    {
      id: 'notion',
      type: 'oauth2',
      oauth: {
        authorizationUrl: `${idp.url}/authorize`,
        tokenUrl: `${idp.url}/token`,
        scopes: ['pages.read'],
      },
    },
  ]);
  const defineTool = defineToolFor(authProviders);
  const plugin = definePlugin({
    id: 'pages',
    name: 'Pages',
    description: 'Pages at an API with its own OAuth.',
    authProviders,
    tools: [
      defineTool({
        path: 'pages.pages.count',
        name: 'Count Pages',
        description: 'Counts the pages shared with you.',
        inputSchema: z.object({}),
        authProvider: 'notion',
        async handler(ctx) {
          return (await (await ctx.auth.fetch('notion', `${api.url}/pages`)).json()) as object;
        },
      }),
    ],
  });
  rememberSecret('notion-client-secret-0123456789');
  const { url } = await startGateway({
    plugins: [plugin],
    env: {
      GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true',
      NOTION_CLIENT_ID: 'notion-client',
      NOTION_CLIENT_SECRET: 'notion-client-secret-0123456789',
    },
  });
  await registerPlugin(url, 'pages');
  return { url, api, tokens };
}

describe('gateway connect, a plugin’s own OAuth provider', () => {
  it('connects through the browser and the provider, and the tool calls the API with the token', async () => {
    const { url, api, tokens } = await world();
    const ada = await signInCli(url, 'ada@example.test');
    const options = ada.options();
    let opened = '';
    let browsing: Promise<URL> | undefined;
    const result = await runConnect({
      ...options,
      tool: 'notion',
      openBrowser: async (page) => {
        opened = page;
        browsing = ada.browser.submit(page, 'connect').then(({ url: end }) => end);
      },
      timeoutMs: 20_000,
    });
    const end = await browsing;
    expect(result).toEqual({
      kind: 'plugin_oauth',
      toolId: 'notion',
      status: 'connected',
      userId: ada.userId,
    });
    expect(opened).toMatch(new RegExp(`^${url}/cli/connect-upstream/%40notion\\?redirect_uri=`));
    expect(end?.toString()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback\?.*status=connected/);
    expect(options.io.out()).toContain('Connected');
    expect(tokens).toHaveLength(1);
    expect(options.io.out()).not.toContain(tokens[0]);

    const endpoint = await runEndpointsCreate({ ...ada.options(), name: 'test', json: true });
    const client = new Client({ name: 'connect-plugin-oauth-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(endpoint.mcpUrl), {
        requestInit: { headers: { authorization: `Bearer ${endpoint.token}` } },
      }),
    );
    onTestFinished(() => client.close());
    const counted = await client.callTool({ name: 'pages.pages.count', arguments: {} });
    expect(counted.isError).toBeFalsy();
    expect(api.requests.at(-1)?.headers.authorization).toBe(`Bearer ${tokens[0]}`);
  });
});
