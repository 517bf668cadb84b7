import { definePlugin, defineTool } from '@gateway/sdk';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { browser } from '#test/auth/oauth-test-kit.js';
import { forecastPlugin, json, notesPlugin, repoPlugin } from '#test/registry/test-plugins.js';
import { createTestGateway } from '#test/support/test-gateway.js';
import type { ToolStatus } from './schemas.js';

async function gateway(env: Record<string, string> = {}) {
  const gw = await createTestGateway({
    plugins: [notesPlugin(), forecastPlugin(), repoPlugin()],
    env,
  });
  for (const id of ['notes', 'forecast', 'repos']) {
    gw.services.plugins.mount({ id, namespace: id, pluginId: id });
  }
  return gw;
}

const forecastOf = (status: ToolStatus) =>
  status.plugins.find((plugin) => plugin.id === 'forecast')?.providers[0];

describe('GET /api/tools/status', () => {
  it("groups the role's tools by plugin with each provider's state", async () => {
    const gw = await gateway({
      GITHUB_CLIENT_ID: 'id',
      GITHUB_CLIENT_SECRET: 'github-secret-0123456789',
    });
    const ada = await gw.createUser({ admin: true });
    const res = await gw.request('GET', `/api/tools/status?userId=${ada.id}`, { as: ada });
    expect(res.status).toBe(200);
    const status = await json<ToolStatus>(res);
    expect(status.roleId).toBe('admin');
    expect(status.plugins.map((plugin) => plugin.id)).toEqual(['forecast', 'notes', 'repos']);
    const notes = status.plugins.find((plugin) => plugin.id === 'notes');
    expect(notes?.providers).toEqual([]);
    expect(notes?.tools.map((tool) => [tool.path, tool.destructive])).toEqual([
      ['notes.admin.purge', true],
      ['notes.notes.create', true],
      ['notes.notes.list', false],
    ]);
    expect(status.plugins.find((plugin) => plugin.id === 'repos')?.providers).toEqual([
      {
        id: 'github',
        name: 'GitHub',
        type: 'oauth2',
        upstream: 'github',
        state: 'none',
        source: null,
        oauth: { configured: true, linked: false, needsReconnect: false },
        teamConnected: false,
        serverKey: false,
        connections: [],
      },
    ]);
  });

  it('follows token vending: own connection, then team, then the server key', async () => {
    const gw = await gateway({ FORECAST_API_KEY: 'fc-server-key-0123456789' });
    const ada = await gw.createUser({ admin: true });
    const bob = await gw.createUser({ admin: true });
    const stateFor = async (user: typeof ada) =>
      forecastOf(
        await json<ToolStatus>(
          await gw.request('GET', `/api/tools/status?userId=${user.id}`, { as: user }),
        ),
      );
    expect(await stateFor(ada)).toMatchObject({
      state: 'server',
      source: 'api_key',
      serverKey: true,
    });

    await gw.request('POST', '/api/team/connections', {
      as: ada,
      body: { toolId: 'forecast', instanceName: 'Team', secret: 'fc-team-key-0123456789' },
    });
    expect(await stateFor(bob)).toMatchObject({ state: 'team', source: 'team_connection' });

    const parent = await json<{ id: string }>(
      await gw.request('POST', '/api/connections', {
        as: bob,
        body: {
          userId: bob.id,
          toolId: 'forecast',
          instanceName: 'Work',
          secret: 'fc-own-key-0123456789',
        },
      }),
    );
    await gw.request('POST', '/api/connections', {
      as: bob,
      body: {
        userId: bob.id,
        toolId: 'forecast',
        instanceName: 'Project',
        secret: 'fc-nested-key-0123456789',
        parentId: parent.id,
      },
    });
    const own = await stateFor(bob);
    expect(own).toMatchObject({ state: 'you', source: 'connection', teamConnected: true });
    // In order of creation, and by id within one millisecond: both may be made in the same one.
    expect(own?.connections).toHaveLength(2);
    expect(own?.connections).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          instanceName: 'Work',
          maskedSecret: '••••••••6789',
          parentId: null,
        }),
        expect.objectContaining({ instanceName: 'Project', parentId: parent.id }),
      ]),
    );
    expect(JSON.stringify(own)).not.toContain('fc-own-key');
  });

  it('says per tool which providers it may obtain credentials for: those its plugin declares', async () => {
    const probe = definePlugin({
      id: 'probe',
      name: 'Probe',
      description: 'Declares two providers.',
      authProviders: [
        { id: 'weather', type: 'api_key', provider: 'weather', scopes: [] },
        { id: 'gh', type: 'oauth2', provider: 'github', scopes: [] },
      ],
      tools: [
        defineTool({
          path: 'probe.tokens.get',
          name: 'Get Token',
          description: 'Needs the weather key.',
          inputSchema: z.object({}),
          authProvider: 'weather',
          async handler() {
            return null;
          },
        }),
      ],
    });
    const gw = await createTestGateway({ plugins: [probe, notesPlugin()] });
    for (const id of ['probe', 'notes'])
      gw.services.plugins.mount({ id, namespace: id, pluginId: id });
    const ada = await gw.createUser({ admin: true });
    const status = await json<ToolStatus>(
      await gw.request('GET', `/api/tools/status?userId=${ada.id}`, { as: ada }),
    );
    const plugin = (id: string) => status.plugins.find((entry) => entry.id === id);
    expect(plugin('probe')?.tools).toEqual([
      {
        path: 'probe.tokens.get',
        name: 'Get Token',
        description: 'Needs the weather key.',
        destructive: false,
        authProvider: 'weather',
        allowedProviders: ['weather', 'gh'],
      },
    ]);
    expect(plugin('notes')?.tools.map((tool) => tool.allowedProviders)).toEqual([[], [], []]);
  });

  // Issue 39: a tool choosing its provider at run time showed "No credentials needed".
  it("shows the plugin's declared providers for a tool that picks one at run time", async () => {
    const picker = definePlugin({
      id: 'picker',
      name: 'Picker',
      description: 'Chooses a provider per call.',
      authProviders: [
        { id: 'idp-gcp', type: 'oauth2', provider: 'gcp', scopes: [] },
        { id: 'weather', type: 'api_key', provider: 'weather', scopes: [] },
      ],
      tools: [
        defineTool({
          path: 'picker.any.call',
          name: 'Call Any',
          description: 'Picks a provider from its input.',
          inputSchema: z.object({ provider: z.string() }),
          async handler(ctx, { provider }) {
            return ctx.auth.getToken(provider);
          },
        }),
      ],
    });
    const gw = await createTestGateway({
      plugins: [picker],
      env: {
        GCP_CLIENT_ID: 'id',
        GCP_CLIENT_SECRET: 'gcp-secret-0123456789',
        GCP_DISPLAY_NAME: 'Corp SSO',
      },
    });
    gw.services.plugins.mount({ id: 'picker', namespace: 'picker', pluginId: 'picker' });
    // The first account, made in a browser, is admin; its Tools tab is checked below.
    const session = browser(gw.fetch, 'http://127.0.0.1:8787');
    const signedUp = await session.browse('/api/auth/sign-up/email', {
      body: { email: 'ada@example.test', password: 'correct horse battery', name: 'Ada' },
    });
    expect(signedUp.status).toBe(200);
    const ada = await gw.createUser({ admin: true });
    const status = await json<ToolStatus>(
      await gw.request('GET', `/api/tools/status?userId=${ada.id}`, { as: ada }),
    );
    const providers = status.plugins.find((plugin) => plugin.id === 'picker')?.providers;
    expect(providers?.map((provider) => [provider.id, provider.name, provider.state])).toEqual([
      ['idp-gcp', 'Corp SSO', 'none'],
      ['weather', 'weather', 'none'],
    ]);
    const page = await session.browse('/tools');
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).not.toContain('>No credentials needed</span>');
    expect(html).toContain('data-provider="idp-gcp"');
  });

  it("lists only what the user's role allows", async () => {
    const gw = await gateway();
    await gw.services.policy.updateRole('member', {
      id: 'member',
      name: 'Member',
      patterns: ['notes.notes.list'],
    });
    const bob = await gw.createUser();
    const status = await json<ToolStatus>(
      await gw.request('GET', `/api/tools/status?userId=${bob.id}`, { as: bob }),
    );
    expect(status.roleId).toBe('member');
    expect(status.plugins.map((plugin) => plugin.tools.map((tool) => tool.path))).toEqual([
      ['notes.notes.list'],
    ]);
  });

  it("refuses another user's id (403)", async () => {
    const gw = await gateway();
    const ada = await gw.createUser();
    const bob = await gw.createUser();
    const res = await gw.request('GET', `/api/tools/status?userId=${ada.id}`, { as: bob });
    expect(res.status).toBe(403);
  });
});
