import { describe, expect, it, vi } from 'vitest';
import { holdPlugin } from '#test/mcp/hold-plugin.js';
import { connectV1, INITIALIZE, startMcpGateway } from '#test/mcp/mcp-test-kit.js';
import { createTestGateway } from '#test/support/test-gateway.js';
import { SessionOwners } from './transport/sessions/session-owners.js';

// Issue 13, item 6: one member opening 10,000 sessions made everyone else's answer 404.

function post(url: string, token: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

/** A 2025 session of `token`, held by the real v1 SDK client. */
async function openSession(url: string, token: string) {
  const { client, transport } = await connectV1(url, token);
  const id = transport.sessionId;
  if (id === undefined) throw new Error('the server gave no session id');
  return { client, id };
}

/** The HTTP status a `tools/list` on session `id` gets: 200 while it lives, 404 once closed. */
async function sessionStatus(url: string, token: string, id: string): Promise<number> {
  const response = await post(
    url,
    token,
    { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
    { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' },
  );
  await response.body?.cancel();
  return response.status;
}

describe('2025 sessions: per-user cap', () => {
  it("closes the user's own least recently used session past the cap, never another user's", async () => {
    const gw = await startMcpGateway({ mcp: { maxSessionsPerUser: 3 } });
    const alice = await gw.user({ admin: true });
    const bob = await gw.user({ admin: true });
    // Bob's session is the oldest on the server: a global LRU would close it first.
    const b1 = await openSession(gw.url, bob.mcpToken);
    const a1 = await openSession(gw.url, alice.mcpToken);
    const a2 = await openSession(gw.url, alice.mcpToken);
    const a3 = await openSession(gw.url, alice.mcpToken);
    // Used again, a1 is no longer Alice's least recently used: a2 is.
    await a1.client.listTools();

    const a4 = await openSession(gw.url, alice.mcpToken);
    expect(await sessionStatus(gw.url, alice.mcpToken, a2.id)).toBe(404);
    for (const { client } of [a1, a3, a4, b1]) {
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    }

    // And so on: each further session of Alice's costs her the one she used least lately, now
    // a1 (the checks above used a1, a3, a4 in that order).
    const a5 = await openSession(gw.url, alice.mcpToken);
    expect(await sessionStatus(gw.url, alice.mcpToken, a1.id)).toBe(404);
    for (const { client } of [a3, a4, a5, b1]) {
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    }
    expect(await sessionStatus(gw.url, bob.mcpToken, b1.id)).toBe(200);
    expect(gw.gateway.logs()).toContain('"reason":"per_user_cap"');
  });

  it('refuses a new session with 429 while every session of the user has a call in flight', async () => {
    const hold = holdPlugin();
    const gw = await startMcpGateway({ plugins: [hold.plugin], mcp: { maxSessionsPerUser: 2 } });
    const alice = await gw.user({ admin: true });
    const bob = await gw.user({ admin: true });
    const a1 = await openSession(gw.url, alice.mcpToken);
    const a2 = await openSession(gw.url, alice.mcpToken);
    const calls = [a1, a2].map(({ client }) =>
      client.callTool({ name: 'hold.calls.wait', arguments: {} }),
    );
    await vi.waitFor(() => expect(gw.gateway.logs().match(/"holding"/g)).toHaveLength(2));

    const refused = await post(gw.url, alice.mcpToken, INITIALIZE);
    expect(refused.status).toBe(429);
    const answer = (await refused.json()) as { id: unknown; error: { message: string } };
    expect(answer.id).toBe(1);
    expect(answer.error.message).toMatch(
      /^Too many MCP sessions: you hold 2 on this server, the most one user may hold is 2, and each has a request in flight\. Close sessions you no longer use/,
    );
    expect(JSON.stringify(answer)).not.toContain(alice.mcpToken);
    // Other users are not held up by Alice's sessions.
    const forBob = await post(gw.url, bob.mcpToken, INITIALIZE);
    expect(forBob.status).toBe(200);
    await forBob.body?.cancel();

    // Once the calls are over, the least recently used session makes room.
    hold.release();
    for (const result of await Promise.all(calls)) expect(result.isError).toBeFalsy();
    const a3 = await openSession(gw.url, alice.mcpToken);
    expect(await sessionStatus(gw.url, alice.mcpToken, a1.id)).toBe(404);
    for (const { client } of [a2, a3]) {
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    }
  });

  it('counts a session idle again once its client hangs up on a call', async () => {
    const gw = await startMcpGateway({ mcp: { maxSessionsPerUser: 1, toolTimeoutMs: 3000 } });
    const alice = await gw.user({ admin: true });
    const a1 = await openSession(gw.url, alice.mcpToken);
    const hangUp = new AbortController();
    const call = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${alice.mcpToken}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': a1.id,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'demo.slow.wait', arguments: {} },
      }),
      signal: hangUp.signal,
    });
    expect(call.status).toBe(200);
    await vi.waitFor(() => expect(gw.gateway.logs()).toContain('waiting until stopped'));
    const busy = await post(gw.url, alice.mcpToken, INITIALIZE);
    expect(busy.status).toBe(429);

    hangUp.abort();
    // Nobody is waiting for that answer any more: the session may make room.
    await vi.waitFor(async () => {
      const opened = await post(gw.url, alice.mcpToken, INITIALIZE);
      await opened.body?.cancel();
      expect(opened.status).toBe(200);
    });
    expect(await sessionStatus(gw.url, alice.mcpToken, a1.id)).toBe(404);
  });

  it('at the server cap, closes a session of the principal holding the most', async () => {
    const gw = await startMcpGateway({ mcp: { maxSessions: 4, maxSessionsPerUser: 10 } });
    const alice = await gw.user({ admin: true });
    const bob = await gw.user({ admin: true });
    const account = await gw.serviceAccount(alice);
    const b1 = await openSession(gw.url, bob.mcpToken);
    const a1 = await openSession(gw.url, alice.mcpToken);
    const a2 = await openSession(gw.url, alice.mcpToken);
    const a3 = await openSession(gw.url, alice.mcpToken);

    // A service account is a principal of its own; the server is full, and Alice holds most.
    const s1 = await openSession(gw.url, account.key);
    expect(await sessionStatus(gw.url, alice.mcpToken, a1.id)).toBe(404);
    for (const { client } of [b1, a2, a3, s1]) {
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    }
    expect(gw.gateway.logs()).toContain('"reason":"server_cap"');
  });
});

describe('GATEWAY_MAX_SESSIONS_PER_USER', () => {
  it('sets the cap, and createGateway({ mcp: { maxSessionsPerUser } }) beats it', async () => {
    const fromEnv = await startMcpGateway({ env: { GATEWAY_MAX_SESSIONS_PER_USER: '1' } });
    const alice = await fromEnv.user({ admin: true });
    const first = await openSession(fromEnv.url, alice.mcpToken);
    await openSession(fromEnv.url, alice.mcpToken);
    expect(await sessionStatus(fromEnv.url, alice.mcpToken, first.id)).toBe(404);

    const fromOption = await startMcpGateway({
      env: { GATEWAY_MAX_SESSIONS_PER_USER: '1' },
      mcp: { maxSessionsPerUser: 2 },
    });
    const bob = await fromOption.user({ admin: true });
    const kept = await openSession(fromOption.url, bob.mcpToken);
    await openSession(fromOption.url, bob.mcpToken);
    expect(await sessionStatus(fromOption.url, bob.mcpToken, kept.id)).toBe(200);
  });

  it('refuses anything but a positive whole number, naming the variable', async () => {
    for (const bad of ['0', '-1', '1.5', 'many', '1e3', '9'.repeat(40)]) {
      await expect(
        createTestGateway({ env: { GATEWAY_MAX_SESSIONS_PER_USER: bad } }),
        bad,
      ).rejects.toThrow(
        `GATEWAY_MAX_SESSIONS_PER_USER must be a positive whole number, got "${bad}"`,
      );
    }
    await expect(createTestGateway({ mcp: { maxSessionsPerUser: 2.5 } })).rejects.toThrow(
      'createGateway({ mcp: { maxSessionsPerUser } }) must be a positive whole number, got 2.5',
    );
  });
});

describe('SessionOwners', () => {
  const session = (id: string, owner: string, inFlight = 0) => ({ id, owner, inFlight });

  it('finds the largest holder as sessions come and go, skipping busy sessions', () => {
    const owners = new SessionOwners<ReturnType<typeof session>>();
    const a = [session('a1', 'a'), session('a2', 'a'), session('a3', 'a', 1)];
    const b = [session('b1', 'b'), session('b2', 'b')];
    for (const s of [...a, ...b]) owners.add(s);
    expect(owners.count('a')).toBe(3);
    expect(owners.idleOfLargestHolder()?.id).toBe('a1');
    owners.touch(a[0] as (typeof a)[number]);
    expect(owners.leastRecentlyUsedIdle('a')?.id).toBe('a2');

    owners.remove(a[1] as (typeof a)[number]);
    owners.remove(a[0] as (typeof a)[number]);
    // Alice holds one, busy; Bob two: Bob is now the largest holder.
    expect(owners.idleOfLargestHolder()?.id).toBe('b1');
    for (const s of b) owners.remove(s);
    // Only a busy session is left: nothing may be closed.
    expect(owners.idleOfLargestHolder()).toBeUndefined();
    owners.remove(a[2] as (typeof a)[number]);
    expect(owners.count('a')).toBe(0);
    owners.add(session('c1', 'c'));
    expect(owners.idleOfLargestHolder()?.id).toBe('c1');
  });
});
