import { describe, expect, it } from 'vitest';
import { browser } from '#test/auth/oauth-test-kit.js';
import { loginAtProvider } from '#test/auth/oidc-provider-server.js';
import { connectV1, startMcpGateway } from '#test/mcp/mcp-test-kit.js';
import { sharedDatabaseTargets } from '#test/support/shared-database.js';
import { startOAuthUpstreamWorld, WORLD_ENV } from '#test/upstream-oauth/oauth-world.js';

const targets = sharedDatabaseTargets();

const text = (result: unknown) =>
  (result as { content: { text: string }[] }).content[0]?.text ?? '';

for (const target of targets) {
  describe.skipIf(target.skip)(`oauth upstreams on ${target.name}`, () => {
    it('finishes a connect on another instance and refreshes once for both', async () => {
      const databaseUrl = await target.databaseUrl();
      const world = await startOAuthUpstreamWorld({ databaseUrl, registrySyncSeconds: 1 });
      expect((await world.register()).status).toBe(201);
      const other = await startMcpGateway({ env: WORLD_ENV, databaseUrl, registrySyncSeconds: 1 });
      const alice = await world.signUp('alice');

      // Started on the first instance, with a token due for a refresh as soon as it is stored.
      world.as.accessTokenTtl = 20;
      const started = await alice.session.browse('/tools/oauth/mcp.secure/connect', {
        form: { go: '1' },
      });
      const callback = await loginAtProvider(started.headers.get('location') ?? '', 'alice-sub');
      // Finished on the other, with the same browser's session.
      const onOther = browser(
        (request) => fetch(request, { redirect: 'manual' }),
        other.url,
        alice.session.jar,
      );
      const finished = await onOther.browse(`${other.url}${callback.pathname}${callback.search}`);
      expect(finished.status).toBe(303);
      expect(finished.headers.get('location')).toBe('/tools?connected=mcp.secure');
      world.as.accessTokenTtl = 3600;

      const first = (await connectV1(world.mcp.url, alice.mcpToken)).client;
      const second = (await connectV1(other.url, alice.mcpToken)).client;
      await expect
        .poll(async () => (await first.listTools()).tools.map((tool) => tool.name), {
          timeout: 5000,
        })
        .toContain('secure.whoami');
      await expect
        .poll(async () => (await second.listTools()).tools.map((tool) => tool.name), {
          timeout: 5000,
        })
        .toContain('secure.whoami');
      const results = await Promise.all([
        ...Array.from({ length: 3 }, () =>
          first.callTool({ name: 'secure.whoami', arguments: {} }),
        ),
        ...Array.from({ length: 3 }, () =>
          second.callTool({ name: 'secure.whoami', arguments: {} }),
        ),
      ]);
      expect(results.map(text)).toEqual(Array(6).fill('you are alice-sub'));
      expect(world.as.grants('refresh_token')).toBe(1);
    }, 60_000);
  });
}
