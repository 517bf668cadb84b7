/**
 * Issue 34: a plugin's own OAuth provider's tokens are refreshed single-flight on any instance.
 * Two gateways share one database (a SQLite file, and PostgreSQL when configured); after expiry,
 * 50 concurrent calls split between them spend the refresh token once.
 */
import { describe, expect, it } from 'vitest';
import { startOidcProvider } from '#test/auth/oidc-provider-server.js';
import { connectV1 } from '#test/mcp/mcp-test-kit.js';
import {
  connectAtOidc,
  connection,
  expire,
  freePort,
  notesPlugin,
  startFakeApi,
  startPluginGateway,
} from '#test/plugin-oauth/plugin-oauth-world.js';
import { rememberSecret } from '#test/support/known-secrets.js';
import { sharedDatabaseTargets } from '#test/support/shared-database.js';

for (const target of sharedDatabaseTargets()) {
  describe.skipIf(target.skip)(`a plugin's own OAuth provider on ${target.name}`, () => {
    it('refreshes once for 50 concurrent calls spread over two instances', async () => {
      const databaseUrl = await target.databaseUrl();
      const [portA, portB] = [await freePort(), await freePort()];
      const idp = await startOidcProvider({
        redirectUri: `http://127.0.0.1:${portA}/oauth/upstream/callback`,
      });
      rememberSecret(idp.clientSecret);
      const api = await startFakeApi(async (authorization) => {
        const me = await fetch(`${idp.issuer}/me`, { headers: { authorization } });
        return me.status === 200 ? ((await me.json()) as { sub: string }).sub : undefined;
      });
      const plugin = notesPlugin(api.url, {
        issuer: idp.issuer,
        scopes: ['openid', 'offline_access'],
        authorizationParams: { prompt: 'consent' },
      });
      const env = { NOTION_CLIENT_ID: idp.clientId, NOTION_CLIENT_SECRET: idp.clientSecret };
      const a = await startPluginGateway({
        port: portA,
        plugins: [plugin],
        env,
        shared: { databaseUrl, first: true },
      });
      const b = await startPluginGateway({
        port: portB,
        plugins: [plugin],
        env,
        shared: { databaseUrl, first: false },
      });
      const alice = await a.signUp('alice');
      const { answer } = await connectAtOidc(alice, 'alice-sub');
      expect(answer.headers.get('location')).toBe('/tools?connected=notion');
      const old = await expire(a.gw, alice.id);
      rememberSecret(old.accessToken);
      rememberSecret(old.refreshToken);

      const onA = await connectV1(a.url, alice.mcpToken);
      const onB = await connectV1(b.url, alice.mcpToken);
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, index) =>
          (index % 2 === 0 ? onA : onB).client.callTool({ name: 'notes.me.get', arguments: {} }),
        ),
      );
      expect(results.filter((result) => result.isError)).toEqual([]);
      expect(idp.grants('refresh_token')).toBe(1);
      const fresh = JSON.parse(
        b.gw.services.secrets.decrypt((await connection(b.gw, alice.id)).encrypted_secret),
      ) as { accessToken: string; refreshToken: string };
      rememberSecret(fresh.accessToken);
      rememberSecret(fresh.refreshToken);
      expect(fresh.accessToken).not.toBe(old.accessToken);
      expect(new Set(api.seen.slice(-50))).toEqual(new Set([`Bearer ${fresh.accessToken}`]));
    }, 60_000);
  });
}
