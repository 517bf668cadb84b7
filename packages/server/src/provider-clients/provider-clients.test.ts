/**
 * Admin → Providers (issue 34): an admin gives a plugin's own OAuth provider its client in the
 * web app or the API; the secret is stored encrypted, never returned, and users connect with it;
 * `<ID>_CLIENT_ID` and `<ID>_CLIENT_SECRET` still win. Over real HTTP, against
 * `oauth2-mock-server`.
 */
import { describe, expect, it } from 'vitest';
import { startMockProvider } from '#test/auth/oauth-test-kit.js';
import { connectV1 } from '#test/mcp/mcp-test-kit.js';
import {
  freePort,
  notesPlugin,
  type PluginOAuthUser,
  startConnect,
  startFakeApi,
  startPluginGateway,
} from '#test/plugin-oauth/plugin-oauth-world.js';
import { rememberSecret } from '#test/support/known-secrets.js';

const SECRET = 'admin-given-secret-0123456789abc';
const NEXT_SECRET = 'admin-given-secret-next-9876543210';

async function world(env: Record<string, string> = {}) {
  const idp = await startMockProvider({ claims: { sub: 'mock-sub' } });
  const api = await startFakeApi(async (authorization) =>
    authorization.startsWith('Bearer ') ? 'mock-user' : undefined,
  );
  const plugin = notesPlugin(api.url, {
    authorizationUrl: `${idp.url}/authorize`,
    tokenUrl: `${idp.url}/token`,
    scopes: ['notes.read'],
  });
  const started = await startPluginGateway({ port: await freePort(), plugins: [plugin], env });
  // The first user to sign up is the admin.
  const admin = await started.signUp('admin');
  const bob = await started.signUp('bob');
  return { idp, api, admin, bob, ...started };
}

async function providers(user: PluginOAuthUser) {
  const answer = await user.session.browse('/api/providers');
  return { status: answer.status, text: await answer.text() };
}

async function flashOf(user: PluginOAuthUser, started: Response): Promise<string> {
  const page = await user.session.browse(started.headers.get('location') ?? '/');
  return /class="notice[^"]*"[^>]*>([^<]*)/.exec(await page.text())?.[1] ?? '';
}

describe('Admin → Providers', () => {
  it('takes a client in the web page, stores the secret encrypted, never shows it, and users connect with it', async () => {
    rememberSecret(SECRET);
    rememberSecret(NEXT_SECRET);
    const { gw, url, admin, bob } = await world();

    // Not set up yet: the user is told the admin gives it a client here.
    await expect(startConnect(bob)).rejects.toThrow('Admin → Providers');
    expect((await providers(bob)).status).toBe(403);
    expect((await bob.session.browse('/admin/providers')).status).toBe(403);

    const before = await (await admin.session.browse('/admin/providers')).text();
    expect(before).toContain('Not set up: users cannot connect it yet');
    expect(before).toContain(`${url}/oauth/upstream/callback`);
    expect(before).toContain('NOTION_CLIENT_ID');

    const saved = await admin.session.browse('/admin/providers/notion', {
      form: { clientId: 'admin-client', clientSecret: SECRET },
    });
    expect(saved.status).toBe(303);
    expect(await flashOf(admin, saved)).toContain('The client of notion is saved');
    const page = await (await admin.session.browse('/admin/providers')).text();
    expect(page).toContain('Set here');
    expect(page).toContain('admin-client');
    expect(page).toContain('set (never shown)');
    expect(page).not.toContain(SECRET);

    const listed = await providers(admin);
    expect(listed.status).toBe(200);
    expect(listed.text).not.toContain(SECRET);
    expect(JSON.parse(listed.text)).toMatchObject({
      providers: [
        {
          id: 'notion',
          pluginId: 'notes',
          client: 'admin',
          clientId: 'admin-client',
          secretSet: true,
          settings: ['NOTION_CLIENT_ID', 'NOTION_CLIENT_SECRET'],
          stored: { clientId: 'admin-client', updatedBy: admin.id },
        },
      ],
    });
    const row = await gw.services.database.db
      .selectFrom('plugin_oauth_clients')
      .selectAll()
      .executeTakeFirstOrThrow();
    expect(row.encrypted_client_secret).not.toContain(SECRET);
    expect(gw.services.secrets.decrypt(row.encrypted_client_secret)).toBe(SECRET);

    // Bob connects with the admin's client and calls the API with his token.
    const authorize = await startConnect(bob);
    expect(authorize.searchParams.get('client_id')).toBe('admin-client');
    const toCallback = await fetch(authorize, { redirect: 'manual' });
    const answer = await bob.session.browse(toCallback.headers.get('location') ?? '');
    expect(answer.headers.get('location')).toBe('/tools?connected=notion');
    const onBob = await connectV1(url, bob.mcpToken);
    const called = await onBob.client.callTool({ name: 'notes.me.get', arguments: {} });
    expect(called.isError).toBeFalsy();

    // A new secret (the client id kept) reaches the copy refreshes use, without reconnecting.
    const changed = await admin.session.browse('/api/providers/notion', {
      method: 'PUT',
      body: { clientId: 'admin-client', clientSecret: NEXT_SECRET },
    });
    expect(changed.status).toBe(200);
    expect(await changed.text()).not.toContain(NEXT_SECRET);
    const kept = await gw.services.database.db
      .selectFrom('upstream_oauth_clients')
      .selectAll()
      .where('source_id', '=', '@notion')
      .executeTakeFirstOrThrow();
    expect(gw.services.secrets.decrypt(kept.encrypted_client_secret ?? '')).toBe(NEXT_SECRET);

    // Without a secret the stored one is kept; the logs never saw either.
    const renamed = await admin.session.browse('/api/providers/notion', {
      method: 'PUT',
      body: { clientId: 'admin-client-2' },
    });
    expect(renamed.status).toBe(200);
    expect((await startConnect(bob)).searchParams.get('client_id')).toBe('admin-client-2');
    expect(gw.logs()).not.toContain(SECRET);
    expect(gw.logs()).not.toContain(NEXT_SECRET);
    expect(gw.logs()).toContain('plugin OAuth client set');

    // Forgotten: connecting is refused again.
    const forgotten = await admin.session.browse('/admin/providers/notion/delete', {
      form: { go: '1' },
    });
    expect(await flashOf(admin, forgotten)).toContain('forgotten');
    expect(JSON.parse((await providers(admin)).text).providers[0]).toMatchObject({
      client: 'none',
      clientId: null,
      secretSet: false,
      stored: null,
    });
    await expect(startConnect(bob)).rejects.toThrow('is not set up on this gateway');
  });

  it('refuses what cannot be stored, by name, as a 4xx', async () => {
    const { admin } = await world();
    const put = async (id: string, body: unknown) => {
      const answer = await admin.session.browse(`/api/providers/${id}`, { method: 'PUT', body });
      return { status: answer.status, text: await answer.text() };
    };
    const unknown = await put('jira', { clientId: 'x', clientSecret: 'y-0123456789' });
    expect(unknown.status).toBe(404);
    expect(unknown.text).toContain('No OAuth provider \\"jira\\" is declared by a loaded plugin');
    const noSecret = await put('notion', { clientId: 'x' });
    expect(noSecret.status).toBe(400);
    expect(noSecret.text).toContain('give clientSecret too');
    expect((await put('notion', { clientId: '', clientSecret: 'y' })).status).toBe(400);
    expect((await put('notion', { clientId: 'x', clientSecret: 'y', extra: 1 })).status).toBe(400);
    const removed = await admin.session.browse('/api/providers/notion', { method: 'DELETE' });
    expect(removed.status).toBe(404);
  });

  it('lets the settings win over a stored client, and says so', async () => {
    rememberSecret('settings-secret-0123456789');
    rememberSecret(SECRET);
    const { admin, bob } = await world({
      NOTION_CLIENT_ID: 'settings-client',
      NOTION_CLIENT_SECRET: 'settings-secret-0123456789',
    });
    const saved = await admin.session.browse('/api/providers/notion', {
      method: 'PUT',
      body: { clientId: 'admin-client', clientSecret: SECRET },
    });
    expect(await saved.json()).toMatchObject({
      client: 'settings',
      clientId: 'settings-client',
      stored: { clientId: 'admin-client' },
    });
    expect((await startConnect(bob)).searchParams.get('client_id')).toBe('settings-client');
    const page = await (await admin.session.browse('/admin/providers')).text();
    expect(page).toContain('Set by the server settings');
    expect(page).not.toContain('settings-secret-0123456789');
  });
});
