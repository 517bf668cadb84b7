import { describe, expect, it } from 'vitest';
import {
  authorizeUrl,
  pkce,
  registerClient,
  signedInBrowser,
  signIn,
  startOAuthGateway,
} from '#test/mcp-oauth/oauth-kit.js';
import { mcpOAuthSettings } from '../config/env-mcp-oauth.js';
import { ClientRegistry } from './clients.js';

const DAY = 24 * 60 * 60 * 1000;

describe('registrations expire', () => {
  it('deletes a registration unused for a day, and one whose grants are gone after the refresh lifetime', async () => {
    const gw = await startOAuthGateway();
    const { db } = gw.gateway.services.database;
    const registry = new ClientRegistry({
      db,
      settings: mcpOAuthSettings({}),
      policy: { allowPrivate: false, selfOrigins: () => [], selfPorts: () => [] },
    });
    const unused = await registerClient(gw.url, { redirect_uris: ['http://127.0.0.1/cb'] });
    const used = await registerClient(gw.url, { redirect_uris: ['http://127.0.0.1/cb'] });
    const session = await signedInBrowser(gw.url);
    const granted = await signIn(gw, session, {
      clientId: String(used.body.client_id),
      redirectUri: 'http://127.0.0.1:40000/cb',
    });
    expect(granted.status).toBe(200);

    await registry.sweep(new Date(Date.now() + 2 * DAY));
    const ids = async () =>
      (await db.selectFrom('mcp_oauth_clients').select('client_id').execute()).map(
        (row) => row.client_id,
      );
    expect(await ids()).toEqual([used.body.client_id]);
    const page = await session.browse(
      authorizeUrl(gw.url, {
        response_type: 'code',
        client_id: String(unused.body.client_id),
        redirect_uri: 'http://127.0.0.1:40000/cb',
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
        resource: `${gw.url}/mcp`,
      }),
    );
    expect(page.status).toBe(400);
    expect(await page.text()).toContain('register again');

    // Its endpoint keeps it; once that is deleted, it goes after the refresh token lifetime.
    await registry.sweep(new Date(Date.now() + 60 * DAY));
    expect(await ids()).toEqual([used.body.client_id]);
    await db.deleteFrom('mcp_endpoints').where('kind', '=', 'oauth').execute();
    await registry.sweep(new Date(Date.now() + 29 * DAY));
    expect(await ids()).toEqual([used.body.client_id]);
    await registry.sweep(new Date(Date.now() + 31 * DAY));
    expect(await ids()).toEqual([]);
  });
});
