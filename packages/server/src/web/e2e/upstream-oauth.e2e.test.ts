/**
 * Issue 16 in Debian's chromium: a person connects an OAuth-protected upstream MCP server (an
 * MCP SDK server behind its bearer-auth gate, oidc-provider as its authorization server) from
 * the Tools tab's Connect button, through the authorization server's own login and consent
 * pages, and back; then the upstream tool runs through /mcp with their own token.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { connectV1 } from '#test/mcp/mcp-test-kit.js';
import { rememberSecret } from '#test/support/known-secrets.js';
import { startOAuthUpstreamWorld } from '#test/upstream-oauth/oauth-world.js';
import { sharedChromium, throughAuthorizationServer } from '#test/web/browser.js';
import { createEndpoint } from '../../mcp-endpoints/index.js';

describe('connecting an OAuth upstream from the Tools tab in chromium', () => {
  it('connects through the authorization server, then the tool runs as the person', async () => {
    const world = await startOAuthUpstreamWorld();
    expect((await world.register()).status).toBe(201);
    const chromium = await sharedChromium();
    onTestFinished(() => chromium.close());
    const context = await chromium.newContext({ baseURL: world.mcp.url });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    const signedUp = await context.request.post('/api/auth/sign-up/email', {
      data: { name: 'Ada', email: 'ada@example.test', password: 'correct horse battery staple' },
      headers: { origin: world.mcp.url },
    });
    expect(signedUp.ok()).toBe(true);
    const { user } = (await signedUp.json()) as { user: { id: string } };

    await page.goto('/tools');
    const block = page.locator('[data-provider="mcp.secure"]');
    expect(await block.locator('[data-state]').getAttribute('data-state')).toBe('none');
    await block.getByRole('button', { name: 'Connect secure' }).click();
    await page.waitForURL((url) => url.origin === world.as.issuer);
    await throughAuthorizationServer(page, world.mcp.url, 'ada-sub');
    await page.waitForURL('**/tools?connected=mcp.secure');
    expect(await page.locator('.notice.ok').textContent()).toBe(
      'The upstream MCP server secure connected.',
    );
    expect(await block.locator('[data-state]').getAttribute('data-state')).toBe('you');
    expect(await page.locator('[data-tool="secure.whoami"]').count()).toBe(1);
    expect(await page.content()).not.toContain('eyJ');

    const endpoint = await createEndpoint(world.mcp.gateway.services.database.db, {
      userId: user.id,
      name: 'chromium',
    });
    if (!endpoint.ok) throw new Error(endpoint.problem);
    rememberSecret(endpoint.endpoint.token);
    const { client } = await connectV1(world.mcp.url, endpoint.endpoint.token);
    const result = await client.callTool({ name: 'secure.whoami', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'you are ada-sub' }]);
  }, 60_000);
});
