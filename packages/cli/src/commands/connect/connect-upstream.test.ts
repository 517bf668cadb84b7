/**
 * Issue 16: `gateway connect <source>` for an upstream MCP source registered with
 * `auth: { kind: "oauth" }`. A real authorization server (oidc-provider) protects an MCP SDK
 * server; the browser signs in there and the gateway keeps the tokens as the user's connection.
 */
import {
  loginAtProvider,
  startProtectedUpstream,
  startUpstreamAuthorizationServer,
} from '@gateway/server/testing';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it, onTestFinished } from 'vitest';
import { type CliUser, cliFailure, signInCli } from '#test/support/cli-user.js';
import { SERVICE_SECRET, startGateway } from '#test/support/gateway-server.js';
import { hiddenFields } from '#test/support/test-browser.js';
import { runConnectionsList } from '../connections/index.js';
import { runEndpointsCreate } from '../endpoints/index.js';
import { runConnect } from './index.js';

async function startWorld(scopedTools: Record<string, string> = {}) {
  const as = await startUpstreamAuthorizationServer();
  const upstream = await startProtectedUpstream(as.issuer);
  for (const [tool, scope] of Object.entries(scopedTools)) upstream.scopedTools.set(tool, scope);
  const { url, gateway } = await startGateway({ env: { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true' } });
  const registered = await fetch(`${url}/api/registry/sources`, {
    method: 'POST',
    headers: { authorization: `Bearer ${SERVICE_SECRET}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      type: 'mcp',
      id: 'secure',
      namespace: 'secure',
      url: upstream.url,
      auth: { kind: 'oauth' },
      // Its tools carry no annotations, which under the default `hints` mode would ask first.
      approval: 'listed',
    }),
  });
  expect(registered.status).toBe(201);
  return { as, upstream, url, gateway };
}

/** The person's browser: the gateway's confirm page, the authorization server, the callback. */
function browse(user: CliUser, login: string, action = 'connect') {
  let done: Promise<unknown> = Promise.resolve();
  const openBrowser = async (page: string) => {
    done = (async () => {
      const html = await (await user.browser.request(page)).text();
      const posted = await user.browser.request(new URL(page).pathname, {
        form: { ...hiddenFields(html), action },
      });
      const location = posted.headers.get('location') ?? '';
      if (action !== 'connect') {
        await user.browser.follow(posted, new URL(page).pathname);
        return;
      }
      const callback = await loginAtProvider(location, login);
      await user.browser.follow(await user.browser.request(callback.toString()), callback.href);
    })();
  };
  return { openBrowser, done: () => done };
}

/** An MCP client of `user`'s own (a new endpoint of theirs), closed when the test finishes. */
async function mcpClientOf(user: CliUser): Promise<Client> {
  const endpoint = await runEndpointsCreate({ ...user.options(), name: 'test', json: true });
  const client = new Client({ name: 'connect-upstream-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(endpoint.mcpUrl), {
      requestInit: { headers: { authorization: `Bearer ${endpoint.token}` } },
    }),
  );
  onTestFinished(() => client.close());
  return client;
}

async function connectUpstream(user: CliUser, login: string) {
  const browser = browse(user, login);
  await runConnect({
    ...user.options(),
    tool: 'secure',
    openBrowser: browser.openBrowser,
    timeoutMs: 20_000,
  });
  await browser.done();
}

describe('gateway connect, upstream MCP sources with OAuth', () => {
  it("signs in at the upstream's authorization server and stores the tokens for the token's user", async () => {
    const { url, gateway } = await startWorld();
    const ada = await signInCli(url, 'ada@example.test');
    const options = ada.options();
    const browser = browse(ada, 'ada-sub');
    const result = await runConnect({
      ...options,
      tool: 'secure',
      openBrowser: browser.openBrowser,
      timeoutMs: 20_000,
    });
    await browser.done();
    expect(result).toEqual({
      kind: 'mcp_oauth',
      toolId: 'secure',
      status: 'connected',
      userId: ada.userId,
    });
    expect(options.io.out()).toBe(
      '✓ Connected the upstream MCP server secure to your account ada@example.test\n',
    );
    expect(ada.browser.lastPage).toContain('secure connected');
    const rows = await gateway.services.database.db
      .selectFrom('connections')
      .select(['user_id', 'tool_id'])
      .execute();
    expect(rows).toEqual([{ user_id: ada.userId, tool_id: 'mcp.secure' }]);

    // `mcp.<source>` names the same source.
    const again = ada.options();
    const second = browse(ada, 'ada-sub');
    await runConnect({
      ...again,
      tool: 'mcp.secure',
      openBrowser: second.openBrowser,
      timeoutMs: 20_000,
      json: true,
    });
    await second.done();
    expect(JSON.parse(again.io.out())).toMatchObject({ kind: 'mcp_oauth', toolId: 'secure' });
  });

  it('reports a cancel in the browser, and refuses flags that only stored keys take (exit 2)', async () => {
    const { url } = await startWorld();
    const ada = await signInCli(url, 'ada@example.test');
    const browser = browse(ada, 'ada-sub', 'cancel');
    const cancelled = await cliFailure(
      runConnect({
        ...ada.options(),
        tool: 'secure',
        openBrowser: browser.openBrowser,
        timeoutMs: 20_000,
      }),
    );
    await browser.done();
    expect(cancelled.message).toBe(
      'Connecting the upstream MCP server secure was cancelled in the browser',
    );
    const flags = await cliFailure(runConnect({ ...ada.options(), tool: 'secure', team: true }));
    expect(flags.exitCode).toBe(2);
    expect(flags.message).toBe(
      '--team do not apply to an upstream MCP source; run `gateway connect secure` alone',
    );
  });

  it('gateway connections list names an upstream connection to connect again, and why', async () => {
    const { url, upstream } = await startWorld({ admin: 'admin' });
    const ada = await signInCli(url, 'ada@example.test');
    await connectUpstream(ada, 'ada-sub');
    const client = await mcpClientOf(ada);
    const list = async () => {
      const options = ada.options();
      await runConnectionsList(options);
      const json = ada.options();
      await runConnectionsList({ ...json, json: true });
      return {
        text: options.io.out(),
        reconnect: (JSON.parse(json.io.out()) as { reconnect: unknown[] }).reconnect,
      };
    };
    expect((await list()).reconnect).toEqual([]);

    // A tool needs a scope the token lacks (step-up): the list says what the next connect asks.
    const refused = await client.callTool({ name: 'secure.admin', arguments: {} });
    expect(refused.isError).toBe(true);
    const short = await list();
    expect(short.text).toMatch(/\n\S+ +mcp\.secure +Default +/);
    expect(short.text).toMatch(
      /\n! A tool of the upstream MCP server secure needs more access than your connection grants \(tools admin\)\. Run `gateway connect secure` to grant it; its other tools keep working\.\n$/,
    );
    expect(short.reconnect).toEqual([
      {
        providerId: 'mcp.secure',
        accountId: expect.any(String),
        command: 'gateway connect secure',
        reason: 'more_scope',
        scope: 'tools admin',
      },
    ]);

    // The upstream refuses the token: the connection serves nothing until connected again.
    upstream.refusedSubjects.add('ada-sub');
    expect((await client.callTool({ name: 'secure.whoami', arguments: {} })).isError).toBe(true);
    const dead = await list();
    expect(dead.text).toMatch(
      /\n! Your connection to the upstream MCP server secure needs reconnecting: the upstream refused it\. Run `gateway connect secure`\.\n$/,
    );
    expect(dead.reconnect).toEqual([expect.objectContaining({ reason: 'refused' })]);

    // The command it names clears both.
    upstream.refusedSubjects.clear();
    await connectUpstream(ada, 'ada-sub');
    expect((await client.callTool({ name: 'secure.admin', arguments: {} })).isError).toBeFalsy();
    expect(await list()).toMatchObject({ reconnect: [] });
  });
});
