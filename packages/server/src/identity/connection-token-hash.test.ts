import { Agent, request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { deleteEndpointOf, INITIALIZE, startMcpGateway } from '#test/mcp/mcp-test-kit.js';
import { hashToken } from '../secrets/index.js';
import { connectionTokenHash } from './connection-token-hash.js';

describe('connectionTokenHash', () => {
  it("answers each token's own hash, whatever the connection presented before", () => {
    const connection = {};
    const a = `gw_mcp_${'a'.repeat(43)}`;
    const b = `gw_mcp_${'a'.repeat(42)}b`;
    for (const token of [a, a, b, a, `${a}a`, a.slice(0, -1), b, b]) {
      expect(connectionTokenHash(connection, token)).toBe(hashToken(token));
    }
    expect(connectionTokenHash(undefined, a)).toBe(hashToken(a));
    // A destroyed message's socket is null: hashed, not kept (a WeakMap refuses null).
    expect(connectionTokenHash(null, a)).toBe(hashToken(a));
    expect(connectionTokenHash({}, b)).toBe(hashToken(b));
  });
});

/** POSTs `initialize` with `token` on `agent`'s one connection: its status and local port. */
function initialize(url: string, agent: Agent, token: string) {
  return new Promise<{ status: number; port: number | undefined }>((resolve, reject) => {
    const body = JSON.stringify(INITIALIZE);
    const req = request(
      `${url}/mcp`,
      {
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, port: req.socket?.localPort }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('MCP tokens on one kept-alive connection (issue 37: the hash kept per connection)', () => {
  it('looks each request up: a deleted token is refused, another user is themselves, a near miss is refused', async () => {
    const gw = await startMcpGateway();
    const alice = await gw.user();
    const bob = await gw.user();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const seen = [
        await initialize(gw.url, agent, alice.mcpToken),
        await initialize(gw.url, agent, bob.mcpToken),
        await initialize(gw.url, agent, alice.mcpToken),
      ];
      expect(seen.map(({ status }) => status)).toEqual([200, 200, 200]);

      await deleteEndpointOf(gw, alice.id);
      // The token this connection presented last, and whose hash it keeps: deleted, refused.
      seen.push(await initialize(gw.url, agent, alice.mcpToken));
      expect(seen.at(-1)?.status).toBe(401);
      seen.push(await initialize(gw.url, agent, bob.mcpToken));
      expect(seen.at(-1)?.status).toBe(200);
      const last = bob.mcpToken.at(-1) === 'A' ? 'B' : 'A';
      seen.push(await initialize(gw.url, agent, `${bob.mcpToken.slice(0, -1)}${last}`));
      expect(seen.at(-1)?.status).toBe(401);
      seen.push(await initialize(gw.url, agent, bob.mcpToken));
      expect(seen.at(-1)?.status).toBe(200);
      // All on one connection, as a client's kept-alive one.
      expect(new Set(seen.map(({ port }) => port)).size).toBe(1);
    } finally {
      agent.destroy();
    }
  });
});
