import { describe, expect, it } from 'vitest';
import { INITIALIZE } from '#test/mcp/mcp-test-kit.js';
import {
  registerClient,
  signedInBrowser,
  signIn,
  startOAuthGateway,
  tokenRequest,
} from '#test/mcp-oauth/oauth-kit.js';
import { sharedDatabaseTargets } from '#test/support/shared-database.js';

function mcpPost(url: string, token: string) {
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify(INITIALIZE),
  });
}

describe.each(sharedDatabaseTargets())(
  'MCP sign-in across instances on $name',
  ({ skip, databaseUrl }) => {
    it.skipIf(skip)(
      "serves a grant on every instance of one address, refuses it for another resource, and a deleted endpoint's tokens everywhere at once",
      async () => {
        const url = await databaseUrl();
        const a = await startOAuthGateway({ databaseUrl: url });
        // Behind one balancer: the same address, the same resource.
        const b = await startOAuthGateway({ databaseUrl: url, baseUrl: a.url });
        // Another gateway on the same database under its own address: another resource.
        const other = await startOAuthGateway({ databaseUrl: url });

        const registered = await registerClient(a.url, {
          client_name: 'Laptop client',
          redirect_uris: ['http://127.0.0.1/callback'],
        });
        const client = {
          clientId: String(registered.body.client_id),
          redirectUri: 'http://127.0.0.1:41000/callback',
        };
        const session = await signedInBrowser(a.url);
        const { body } = await signIn(a, session, client);
        const access = String(body.access_token);
        expect((await mcpPost(a.url, access)).status).toBe(200);
        expect((await mcpPost(b.url, access)).status).toBe(200);
        const elsewhere = await mcpPost(other.url, access);
        expect(elsewhere.status).toBe(401);
        expect(elsewhere.headers.get('www-authenticate')).toContain('another resource');

        // A refresh at one instance, the new token at the other.
        const refreshed = await tokenRequest(b.url, {
          grant_type: 'refresh_token',
          refresh_token: String(body.refresh_token),
          client_id: client.clientId,
        });
        expect(refreshed.status).toBe(200);
        const fresh = String(refreshed.body.access_token);
        expect((await mcpPost(a.url, fresh)).status).toBe(200);
        expect((await mcpPost(b.url, fresh)).status).toBe(200);

        const list = await session.browse(
          `/api/connections/mcp-endpoints?userId=${await userIdOf(a)}`,
        );
        const { endpoints } = (await list.json()) as { endpoints: { id: string; kind: string }[] };
        expect(endpoints.map((endpoint) => endpoint.kind)).toEqual(['oauth']);
        const deleted = await session.browse(
          `/api/connections/mcp-endpoints/${endpoints[0]?.id}?userId=${await userIdOf(a)}`,
          { method: 'DELETE' },
        );
        expect(deleted.status).toBe(200);
        expect((await mcpPost(b.url, fresh)).status).toBe(401);
        expect((await mcpPost(a.url, fresh)).status).toBe(401);
        const again = await tokenRequest(b.url, {
          grant_type: 'refresh_token',
          refresh_token: String(refreshed.body.refresh_token),
          client_id: client.clientId,
        });
        expect(again.body).toMatchObject({ error: 'invalid_grant' });
      },
      60_000,
    );
  },
);

async function userIdOf(gw: Awaited<ReturnType<typeof startOAuthGateway>>): Promise<string> {
  const [user] = await gw.gateway.services.database.db.selectFrom('user').select('id').execute();
  return user?.id ?? '';
}
