import { createHash, randomBytes } from 'node:crypto';
import { rememberSecret } from '@gateway/server/testing';
import { describe, expect, it } from 'vitest';
import { cliFailure, revokeTokensOf, signInCli } from '#test/support/cli-user.js';
import { startGateway } from '#test/support/gateway-server.js';
import { hiddenFields } from '#test/support/test-browser.js';
import {
  runEndpointsCreate,
  runEndpointsList,
  runEndpointsRm,
  runEndpointsUpdate,
} from './index.js';
import { mcpClientConfigs } from './mcp-client-configs.js';

async function mcpStatus(url: string, token: string): Promise<number> {
  const response = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'cli-test', version: '1.0.0' },
      },
    }),
  });
  await response.body?.cancel();
  return response.status;
}

describe('gateway endpoints', () => {
  it('creates an endpoint, prints its token once with client configs, lists it masked, removes it', async () => {
    const { url } = await startGateway();
    const ada = await signInCli(url, 'ada@example.test');
    const created = ada.options();
    const endpoint = await runEndpointsCreate({
      ...created,
      name: 'Laptop',
      description: 'Claude',
    });
    expect(endpoint.token).toMatch(/^gw_mcp_/);
    expect(endpoint.mcpUrl).toBe(`${url}/mcp`);
    const out = created.io.out();
    expect(out).toContain(`✓ Created MCP endpoint "Laptop" (${endpoint.id})`);
    expect(out).toContain('(shown only this once; keep it secret)');
    expect(out).toContain(`  ${endpoint.token}\n`);
    expect(out).toContain(
      `npx mcp-remote ${url}/mcp --header "Authorization: Bearer ${endpoint.token}"`,
    );
    expect(out).toContain(JSON.stringify(endpoint.configs.cursor, null, 2));
    expect(endpoint.configs.cursor).toEqual({
      mcpServers: {
        'gateway-laptop': {
          url: `${url}/mcp`,
          headers: { Authorization: `Bearer ${endpoint.token}` },
        },
      },
    });
    expect(await mcpStatus(url, endpoint.token)).toBe(200);

    const listed = ada.options();
    await runEndpointsList(listed);
    expect(listed.io.out()).toMatch(
      new RegExp(
        `^ID\\s+NAME\\s+TOKEN\\s+LAST USED\\s+TOOLS\\s+DESCRIPTION\\n${endpoint.id}\\s+Laptop\\s+gw_mcp_•+\\S{4}\\s+\\S+\\s+all\\s+Claude\\n$`,
      ),
    );
    expect(listed.io.out()).not.toContain(endpoint.token);

    const json = ada.options();
    await runEndpointsCreate({ ...json, name: 'ci', json: true });
    expect(JSON.parse(json.io.out())).toMatchObject({
      name: 'ci',
      token: expect.stringMatching(/^gw_mcp_/),
      mcpUrl: `${url}/mcp`,
      configs: { claudeDesktop: { mcpServers: { 'gateway-ci': { command: 'npx' } } } },
    });

    const removed = ada.options();
    await expect(runEndpointsRm({ ...removed, id: endpoint.id })).resolves.toEqual([endpoint.id]);
    expect(removed.io.out()).toBe(
      `✓ Removed MCP endpoint ${endpoint.id}; its token no longer works\n`,
    );
    expect(await mcpStatus(url, endpoint.token)).toBe(401);
    const again = await cliFailure(runEndpointsRm({ ...ada.options(), id: endpoint.id }));
    expect(again.exitCode).toBe(1);
    expect(again.message).toBe(`No MCP endpoint ${endpoint.id}; see \`gateway endpoints list\``);
  });

  it('creates an endpoint with --tools and --mode, and updates them (issue 33)', async () => {
    const { url } = await startGateway();
    const ada = await signInCli(url, 'ada@example.test');
    const created = ada.options();
    const endpoint = await runEndpointsCreate({
      ...created,
      name: 'notes',
      tools: ['notes.**'],
      mode: 'discovery',
    });
    expect(created.io.out()).toContain('Serves notes.** (discovery)\n');

    const updated = ada.options();
    const result = await runEndpointsUpdate({
      ...updated,
      id: endpoint.id,
      tools: ['notes.notes.list,github.repos.*'],
      mode: 'tools',
    });
    expect(result).toMatchObject({ tools: ['notes.notes.list', 'github.repos.*'], mode: 'tools' });
    expect(updated.io.out()).toBe(
      '✓ Updated MCP endpoint "notes": serves notes.notes.list, github.repos.*\n',
    );
    const listed = ada.options();
    await runEndpointsList({ ...listed, json: true });
    expect(JSON.parse(listed.io.out())).toMatchObject({
      endpoints: [
        { id: endpoint.id, tools: ['notes.notes.list', 'github.repos.*'], mode: 'tools' },
      ],
    });

    const all = ada.options();
    await runEndpointsUpdate({ ...all, id: endpoint.id, allTools: true });
    expect(all.io.out()).toBe('✓ Updated MCP endpoint "notes": serves every tool of your role\n');

    const nothing = await cliFailure(runEndpointsUpdate({ ...ada.options(), id: endpoint.id }));
    expect(nothing.exitCode).toBe(2);
    const invalid = await cliFailure(
      runEndpointsUpdate({ ...ada.options(), id: endpoint.id, tools: ['Notes..x'] }),
    );
    expect(invalid.exitCode).toBe(1);
    expect(invalid.message).toContain('tools.0');
  });

  it('refuses a taken name (exit 1) and a revoked sign-in (exit 4)', async () => {
    const { url } = await startGateway();
    const ada = await signInCli(url, 'ada@example.test');
    await runEndpointsCreate({ ...ada.options(), name: 'laptop' });
    const taken = await cliFailure(runEndpointsCreate({ ...ada.options(), name: 'laptop' }));
    expect(taken.exitCode).toBe(1);
    expect(taken.message).toBe(
      'An MCP endpoint named "laptop" already exists; choose another name or delete that one; see `gateway endpoints list`',
    );
    await revokeTokensOf(ada);
    const signedOut = await cliFailure(runEndpointsList(ada.options()));
    expect(signedOut.exitCode).toBe(4);
    expect(signedOut.message).toBe('Not signed in. Run `gateway login`.');
  });
});

describe('gateway endpoints list with a client signed in by OAuth', () => {
  it('lists the grant as an endpoint of its own, without a token', async () => {
    const { url } = await startGateway();
    const ada = await signInCli(url, 'ada@example.test');
    const registered = await fetch(`${url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Claude Code', redirect_uris: ['http://127.0.0.1/cb'] }),
    });
    const { client_id: clientId } = (await registered.json()) as { client_id: string };
    const verifier = randomBytes(32).toString('base64url');
    const authorize = new URL('/oauth/authorize', url);
    for (const [name, value] of Object.entries({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: 'http://127.0.0.1:45000/cb',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      resource: `${url}/mcp`,
    })) {
      authorize.searchParams.set(name, value);
    }
    const page = await ada.browser.request(authorize.href);
    expect(page.status).toBe(200);
    const allowed = await ada.browser.request('/oauth/authorize', {
      form: { ...hiddenFields(await page.text()), action: 'allow' },
    });
    const code = new URL(allowed.headers.get('location') ?? '').searchParams.get('code') ?? '';
    const token = await fetch(`${url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        client_id: clientId,
        redirect_uri: 'http://127.0.0.1:45000/cb',
        code_verifier: verifier,
      }).toString(),
    });
    expect(token.status).toBe(200);
    const { access_token: accessToken } = (await token.json()) as { access_token: string };
    rememberSecret(accessToken);

    const listed = ada.options();
    const endpoints = await runEndpointsList(listed);
    expect(endpoints).toEqual([
      expect.objectContaining({
        name: 'Claude Code',
        kind: 'oauth',
        clientId,
        tools: null,
        mode: 'tools',
      }),
    ]);
    // The whole role, like a new token endpoint: the TOOLS column says `all`.
    expect(listed.io.out()).toMatch(/\n\S+\s+Claude Code\s+OAuth sign-in\s+never\s+all\s*\n$/);
    expect(await mcpStatus(url, accessToken)).toBe(200);
    await runEndpointsRm({ ...ada.options(), id: endpoints[0]?.id ?? '' });
    expect(await mcpStatus(url, accessToken)).toBe(401);
  });
});

describe('mcpClientConfigs', () => {
  it('passes the header to mcp-remote through the environment, and allows plain HTTP only where needed', () => {
    const local = mcpClientConfigs('http://127.0.0.1:8787/mcp', 'gw_mcp_x', 'gateway');
    expect(local.claudeDesktop).toEqual({
      mcpServers: {
        gateway: {
          command: 'npx',
          args: [
            '-y',
            'mcp-remote',
            'http://127.0.0.1:8787/mcp',
            '--header',
            // biome-ignore lint/suspicious/noTemplateCurlyInString: mcp-remote's own placeholder
            'Authorization:${AUTH_HEADER}',
          ],
          env: { AUTH_HEADER: 'Bearer gw_mcp_x' },
        },
      },
    });
    expect(local.vscode).toEqual({
      servers: {
        gateway: {
          type: 'http',
          url: 'http://127.0.0.1:8787/mcp',
          headers: { Authorization: 'Bearer gw_mcp_x' },
        },
      },
    });
    const remote = mcpClientConfigs('http://gw.internal:8787/mcp', 'gw_mcp_x', 'gateway');
    expect(remote.command).toBe(
      'npx mcp-remote http://gw.internal:8787/mcp --allow-http --header "Authorization: Bearer gw_mcp_x"',
    );
  });
});
