import { describe, expect, it } from 'vitest';
import { browser } from '#test/auth/oauth-test-kit.js';
import { forecastPlugin } from '#test/registry/test-plugins.js';
import { createTestGateway } from '#test/support/test-gateway.js';
import { ASSETS } from './assets/index.js';
import { clientConfigs } from './mcp-client-configs.js';

const ORIGIN = 'http://127.0.0.1:8787';

async function signedUp() {
  const gw = await createTestGateway({ plugins: [forecastPlugin()] });
  gw.services.plugins.mount({ id: 'forecast', namespace: 'forecast', pluginId: 'forecast' });
  const session = browser(gw.fetch, ORIGIN);
  const res = await session.browse('/sign-up', {
    form: {
      name: 'Ada',
      email: 'ada@example.test',
      password: 'correct horse battery',
      next: '/tools',
    },
  });
  expect(res.status).toBe(303);
  expect(res.headers.get('location')).toBe('/tools');
  return { gw, session };
}

describe('web app pages (without a browser)', () => {
  it('sends a browser without a session to sign in, and back afterwards', async () => {
    const gw = await createTestGateway();
    const res = await gw.fetch(new Request(`${ORIGIN}/endpoints?x=1`));
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/sign-in?next=%2Fendpoints%3Fx%3D1');
    const page = await gw.fetch(new Request(`${ORIGIN}/sign-in`));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('cache-control')).toBe('no-store');
  });

  it('signs up through the form and renders the Tools tab for the new admin', async () => {
    const { session } = await signedUp();
    const res = await session.browse('/tools');
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<h1>Tools</h1>');
    expect(html).toContain('data-provider="forecast"');
    // Each tool says which credentials it may obtain: its plugin's declared providers (issue 14).
    expect(html).toMatch(
      /<li data-tool="forecast\.daily\.get"[^>]*>[\s\S]*?<p class="small muted" data-allowed-providers="forecast">May use credentials of <code>forecast<\/code> only\.<\/p>/,
    );
    expect(html).toContain('Welcome, Ada');
  });

  it('stores an API key from the form and shows it masked only', async () => {
    const { session } = await signedUp();
    const saved = await session.browse('/tools/connections', {
      form: { toolId: 'forecast', instanceName: 'Personal', secret: 'fc-key-0123456789-abcd' },
    });
    expect(saved.status).toBe(303);
    const html = await (await session.browse('/tools')).text();
    expect(html).toContain('••••••••abcd');
    expect(html).not.toContain('fc-key-0123456789');
  });

  it('refuses a form post from another origin or without any origin information', async () => {
    const { gw, session } = await signedUp();
    const cookie = session.jar.header();
    const post = (headers: Record<string, string>) =>
      gw.fetch(
        new Request(`${ORIGIN}/endpoints`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, ...headers },
          body: 'name=stolen',
        }),
      );
    expect((await post({ origin: 'https://evil.example' })).status).toBe(403);
    expect((await post({})).status).toBe(403);
    expect((await post({ 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await post({ 'sec-fetch-site': 'same-origin' })).status).toBe(201);
  });

  // Issue 33: an endpoint's tools and mode, with the preview over the user's role.
  it('creates an endpoint with tools and a mode, previews them, and changes them', async () => {
    const { gw, session } = await signedUp();
    const page = await (await session.browse('/endpoints')).text();
    expect(page).toContain('data-preview-user=');
    expect(page).toContain('Serves all 1 tool of your role');
    const created = await session.browse('/endpoints', {
      form: { name: 'Weather', tools: 'forecast.**\nlater.tools', mode: 'discovery' },
    });
    expect(created.status).toBe(201);
    const html = await created.text();
    expect(html).toContain('Tools: forecast.**, later.tools · discovery mode');
    expect(html).toContain('Line 2 (later.tools): matches nothing today');
    expect(html).toContain('Serves 1 of 1 tool of your role');
    const [row] = await gw.services.database.db
      .selectFrom('mcp_endpoints')
      .select(['id', 'tools', 'mode'])
      .execute();
    expect(row).toMatchObject({ tools: '["forecast.**","later.tools"]', mode: 'discovery' });

    const saved = await session.browse(`/endpoints/${row?.id}/update`, {
      form: { tools: '', mode: 'tools' },
    });
    expect(saved.status).toBe(303);
    const after = await (await session.browse('/endpoints')).text();
    expect(after).toContain('Every tool of your role');
    const bad = await session.browse(`/endpoints/${row?.id}/update`, {
      form: { tools: 'Bad..pattern', mode: 'tools' },
    });
    expect(bad.status).toBe(303);
    expect(await (await session.browse('/endpoints')).text()).toContain('segment');
  });

  it('keeps admin pages for admins', async () => {
    const { gw } = await signedUp();
    const bob = browser(gw.fetch, ORIGIN);
    await bob.browse('/sign-up', {
      form: { name: 'Bob', email: 'bob@example.test', password: 'correct horse battery' },
    });
    expect((await bob.browse('/admin/roles')).status).toBe(403);
    const post = await bob.browse('/admin/roles/member', {
      form: { name: 'Member', patterns: '**' },
    });
    expect(post.status).toBe(303);
    expect((await gw.services.policy.getRole('member'))?.patterns).toEqual([]);
  });

  // Issue 18: a member of the empty default role read "Connect your first tool below" above
  // "Your role allows no tools yet".
  it('points a new user at tools below only when their role allows some', async () => {
    const { gw } = await signedUp();
    const bob = browser(gw.fetch, ORIGIN);
    await bob.browse('/sign-up', {
      form: { name: 'Bob', email: 'bob@example.test', password: 'correct horse battery' },
    });
    const html = await (await bob.browse('/tools')).text();
    expect(html).toContain('>Welcome, Bob.</p>');
    expect(html).not.toContain('Connect your first tool below');
    expect(html).toContain('Your role allows no tools yet.');

    const carol = browser(gw.fetch, ORIGIN);
    await gw.services.policy.updateRole('member', {
      id: 'member',
      name: 'Member',
      patterns: ['forecast.**'],
    });
    await carol.browse('/sign-up', {
      form: { name: 'Carol', email: 'carol@example.test', password: 'correct horse battery' },
    });
    expect(await (await carol.browse('/tools')).text()).toContain(
      '>Welcome, Carol. Connect your first tool below.</p>',
    );
  });

  // Issue 18: an unknown page answered raw JSON, and /favicon.ico a 404.
  it('answers a browser with its own 404 page, the API with JSON, and serves an icon', async () => {
    const gw = await createTestGateway({ host: '127.0.0.1', port: 0, baseUrl: undefined });
    const { url } = await gw.start();
    const get = (path: string, accept: string) => fetch(`${url}${path}`, { headers: { accept } });
    const browserAccept = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

    const page = await get('/no-such-page', browserAccept);
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await page.text();
    expect(html).toContain('<h1>Page not found</h1>');
    expect(html).toContain('<code>/no-such-page</code>');

    for (const [path, accept] of [
      ['/no-such-page', 'application/json'],
      ['/api/no-such-route', browserAccept],
      ['/mcp/extra/path', browserAccept],
    ] as const) {
      const res = await get(path, accept);
      expect(res.status, path).toBe(404);
      expect(await res.json()).toMatchObject({ error: { code: 'not_found' } });
    }

    const icon = await get('/favicon.ico', 'image/avif,image/webp,image/*,*/*;q=0.8');
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(await icon.text()).toContain('<svg');
  });

  it('serves its assets with a content hash that may be cached', async () => {
    const gw = await createTestGateway();
    const current = await gw.fetch(new Request(`${ORIGIN}${ASSETS.js.url}`));
    expect(current.headers.get('content-type')).toContain('javascript');
    expect(current.headers.get('cache-control')).toContain('immutable');
    const stale = await gw.fetch(new Request(`${ORIGIN}/assets/app.css?v=old`));
    expect(stale.headers.get('cache-control')).toBe('no-cache');
    // The script must parse: a syntax error would silently leave every page without dialogs.
    expect(() => new Function(ASSETS.js.body)).not.toThrow();
  });
});

describe('clientConfigs', () => {
  it('puts the token in a bearer header, or in the URL for URL-only clients', () => {
    const configs = clientConfigs('https://gw.example.com', 'gw_mcp_abc');
    const byId = Object.fromEntries(configs.map((config) => [config.id, config.text]));
    expect(JSON.parse(byId.cursor ?? '')).toEqual({
      mcpServers: {
        gateway: {
          url: 'https://gw.example.com/mcp',
          headers: { Authorization: 'Bearer gw_mcp_abc' },
        },
      },
    });
    expect(byId['url-only']).toBe('https://gw.example.com/mcp/gw_mcp_abc');
  });
});

describe('form size', () => {
  it('refuses a form over 1 MiB with 413', async () => {
    const gw = await createTestGateway();
    const res = await gw.fetch(
      new Request(`${ORIGIN}/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN },
        body: `email=${'a'.repeat(1024 * 1024 + 10)}`,
      }),
    );
    expect(res.status).toBe(413);
  });
});
