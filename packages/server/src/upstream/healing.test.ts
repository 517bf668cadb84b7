/**
 * Issue 31: an HTTP upstream that restarts forgets its sessions. server-everything answers a
 * forgotten session with HTTP 400 ("No valid session ID provided"), which the gateway used to
 * treat as a failure, tripping the breaker for minutes. Now the session is dropped, a new one
 * opened, and the call sent again when the upstream refused it, so the next call just answers.
 */
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { connectV1, connectV2, startMcpGateway } from '#test/mcp/mcp-test-kit.js';
import { startEverythingHttp } from '#test/upstream/everything.js';
import { registerSource } from '#test/upstream/register-source.js';

describe('an HTTP upstream restarted mid-run', () => {
  it('answers the next call within 2 s on a new session, and its breaker stays closed', async () => {
    let upstream = await startEverythingHttp();
    const gw = await startMcpGateway({ env: { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true' } });
    expect(
      (
        await registerSource(gw.url, {
          type: 'mcp',
          id: 'ev',
          namespace: 'ev',
          url: upstream.url,
        })
      ).status,
    ).toBe(201);
    const alice = await gw.user({ admin: true });
    const v2 = await connectV2(gw.url, alice.mcpToken);
    const { client: v1 } = await connectV1(gw.url, alice.mcpToken);
    const echo = (client: typeof v2 | typeof v1, message: string) =>
      client.callTool({ name: 'ev.echo', arguments: { message } });
    // Sessions opened and kept, one per concurrent call.
    await Promise.all([echo(v2, 'a'), echo(v1, 'b')]);

    for (let round = 0; round < 2; round++) {
      const exited = once(upstream.process, 'exit');
      upstream.process.kill('SIGKILL');
      await exited;
      upstream = await startEverythingHttp(upstream.port);
      for (const client of [v2, v1]) {
        const started = Date.now();
        const answer = await echo(client, `after restart ${round}`);
        expect(answer.isError).toBeFalsy();
        expect(JSON.stringify(answer.content)).toContain(`after restart ${round}`);
        expect(Date.now() - started).toBeLessThan(2000);
      }
    }
    const listed = await gw.gateway.request('GET', '/api/registry/sources', { as: 'service' });
    const { sources } = (await listed.json()) as {
      sources: { id: string; upstream?: { health: { state: string; failures: number } } }[];
    };
    expect(sources.find((source) => source.id === 'ev')?.upstream?.health).toMatchObject({
      state: 'ok',
      failures: 0,
    });
  });
});
