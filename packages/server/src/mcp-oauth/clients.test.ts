import { describe, expect, it } from 'vitest';
import {
  authorizeUrl,
  pkce,
  registerClient,
  signedInBrowser,
  signIn,
  startOAuthGateway,
  startServer,
} from '#test/mcp-oauth/oauth-kit.js';
import { mcpOAuthSettings } from '../config/env-mcp-oauth.js';
import { ClientRegistry, FAILED_DOCUMENT_MS } from './clients.js';
import { OAuthError } from './errors.js';

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

describe('client id metadata documents that fail', () => {
  it('are fetched once for requests at the same time, and not again until the refusal is stale', async () => {
    const gw = await startOAuthGateway();
    const registry = new ClientRegistry({
      db: gw.gateway.services.database.db,
      settings: { ...mcpOAuthSettings({}), allowLoopbackHttpClientIds: true },
      policy: { allowPrivate: true, selfOrigins: () => [], selfPorts: () => [] },
    });
    let answer = 500;
    let clientId = '';
    const server = await startServer((_path, res) => {
      // Answers a little later, so that the requests below overlap.
      setTimeout(() => {
        if (answer !== 200) return void res.writeHead(answer).end();
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ client_id: clientId, redirect_uris: ['http://127.0.0.1/cb'] }));
      }, 100);
    });
    clientId = `${server.url}/client.json`;
    const now = new Date();
    const refusal = (at: Date) =>
      registry.find(clientId, at).then(
        () => undefined,
        (error: unknown) => (error instanceof OAuthError ? error.message : String(error)),
      );

    const together = await Promise.all([refusal(now), refusal(now), refusal(now)]);
    expect(server.hits()).toBe(1);
    expect(together[0]).toContain('answered HTTP 500');
    expect(together[0]).toContain('fetched again after 30 s');
    expect(new Set(together).size).toBe(1);
    // Remembered: asked again within the time, the URL is not fetched.
    expect(await refusal(new Date(now.getTime() + FAILED_DOCUMENT_MS - 1))).toBe(together[0]);
    expect(server.hits()).toBe(1);
    // Once stale it is fetched again, and a document that now answers is used (and cached).
    answer = 200;
    const later = new Date(now.getTime() + FAILED_DOCUMENT_MS + 1);
    expect((await registry.find(clientId, later)).redirectUris).toEqual(['http://127.0.0.1/cb']);
    expect(server.hits()).toBe(2);
    await registry.find(clientId, later);
    expect(server.hits()).toBe(2);
  });
});
