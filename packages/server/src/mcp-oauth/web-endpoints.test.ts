import { describe, expect, it } from 'vitest';
import {
  hiddenOf,
  registerClient,
  signedInBrowser,
  signIn,
  startOAuthGateway,
} from '#test/mcp-oauth/oauth-kit.js';

describe('the web app lists a signed-in client with the other endpoints', () => {
  it('shows it by the client name, as signed in with OAuth, and deletes it like any endpoint', async () => {
    const gw = await startOAuthGateway();
    const session = await signedInBrowser(gw.url);
    const created = await session.browse('/endpoints', { form: { name: 'Laptop' } });
    expect(created.status).toBe(201);
    const registered = await registerClient(gw.url, {
      client_name: 'Claude Code',
      redirect_uris: ['http://127.0.0.1/cb'],
    });
    const { body } = await signIn(gw, session, {
      clientId: String(registered.body.client_id),
      redirectUri: 'http://127.0.0.1:40100/cb',
    });
    const page = await session.browse('/endpoints');
    const html = await page.text();
    const row = /<tr data-endpoint="Claude Code">([\s\S]*?)<\/tr>/.exec(html)?.[1] ?? '';
    expect(row).toContain('Signed in with OAuth');
    expect(html).toContain('data-endpoint="Laptop"');
    expect(html).not.toContain(String(body.access_token));
    const action = /action="(\/endpoints\/[^"]+\/delete)"/.exec(row)?.[1] ?? '';
    const deleted = await session.browse(action, { method: 'POST', form: hiddenOf(row) });
    expect(deleted.status).toBe(303);
    const after = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${body.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{}',
    });
    expect(after.status).toBe(401);
  });
});
