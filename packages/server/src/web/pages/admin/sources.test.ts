/** Issue 16: the admin pages list upstream sources with their status; their tools show in Tools. */
import { describe, expect, it } from 'vitest';
import { browser } from '../../../auth/oauth-test-kit.js';
import { rememberSecret } from '../../../testing/known-secrets.js';
import { createTestGateway } from '../../../testing/test-gateway.js';
import { startFakeUpstream } from '../../../upstream/testing/fake-upstream.js';

const ORIGIN = 'http://127.0.0.1:8787';

describe('the Sources admin page', () => {
  it('lists an upstream MCP source with its address, auth, health and mapped names', async () => {
    const fake = await startFakeUpstream([
      { name: 'get-sum', behaviour: { kind: 'answer' } },
      { name: 'search', behaviour: { kind: 'answer' } },
    ]);
    rememberSecret('server-sums-key');
    const gw = await createTestGateway({
      env: { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true', SUMSAPI_API_KEY: 'server-sums-key' },
    });
    const registered = await gw.request('POST', '/api/registry/sources', {
      as: 'service',
      body: {
        type: 'mcp',
        id: 'sums',
        namespace: 'sums',
        url: fake.url,
        auth: { kind: 'header', provider: 'sumsapi', header: 'X-Api-Key' },
      },
    });
    expect(registered.status).toBe(201);
    const session = browser(gw.fetch, ORIGIN);
    await session.browse('/sign-up', {
      form: { name: 'Ada', email: 'ada@example.test', password: 'correct horse battery' },
    });

    const res = await session.browse('/admin/sources');
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain('data-source="sums"');
    expect(page).toContain('MCP (http)');
    expect(page).toContain(fake.url);
    expect(page).toContain(
      '<code>sums.get_sum</code> <span class="muted">(upstream name <code>get-sum</code>)',
    );
    expect(page).toMatch(/<a href="\/admin\/sources" aria-current="page">Sources<\/a>/);

    expect(page).toContain('auth header: <code>sumsapi</code> in <code>X-Api-Key</code>');

    // The Tools tab shows the upstream's tools like any others, with the provider to connect.
    const tools = await (await session.browse('/tools')).text();
    expect(tools).toContain('sums.search');
    expect(tools).toContain('data-provider="sumsapi"');
  });
});
