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
import { describe, expect, it } from 'vitest';
import { type CliUser, cliFailure, signInCli } from '../../test-support/cli-user.js';
import { SERVICE_SECRET, startGateway } from '../../test-support/gateway-server.js';
import { hiddenFields } from '../../test-support/test-browser.js';
import { runConnect } from './index.js';

async function startWorld() {
  const as = await startUpstreamAuthorizationServer();
  const upstream = await startProtectedUpstream(as.issuer);
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
});
