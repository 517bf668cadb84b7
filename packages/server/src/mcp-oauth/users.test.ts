/**
 * Issue 32, "Done when": user A's token used with user B's endpoint. A `gw_oat_` token is its own
 * endpoint: there is no way to point it at another user's. Alice's token acts only through Alice's
 * endpoint (its narrowing, its execution records), never Bob's; it works in the header only; and
 * Alice's session cannot change or delete Bob's endpoint.
 */
import { describe, expect, it } from 'vitest';
import { connectV1 } from '#test/mcp/mcp-test-kit.js';
import {
  registerClient,
  signedInBrowser,
  signIn,
  startOAuthGateway,
} from '#test/mcp-oauth/oauth-kit.js';
import { listEndpoints } from '../mcp-endpoints/index.js';

const names = (tools: readonly { name: string }[]) => tools.map((tool) => tool.name).sort();

describe("user A's OAuth token and user B's endpoint", () => {
  it("acts only through A's own endpoint: B's narrowing, records and endpoint stay B's", async () => {
    const gw = await startOAuthGateway();
    await signedInBrowser(gw.url, 'admin@example.test'); // the first user is the admin
    const alice = await signedInBrowser(gw.url, 'alice@example.test');
    const bob = await signedInBrowser(gw.url, 'bob@example.test');
    const { db } = gw.gateway.services.database;
    const idOf = async (email: string) =>
      (
        await db
          .selectFrom('user')
          .select('id')
          .where('email', '=', email)
          .executeTakeFirstOrThrow()
      ).id;
    const [aliceId, bobId] = [await idOf('alice@example.test'), await idOf('bob@example.test')];
    const { policy } = gw.gateway.services;
    await policy.createRole({ id: 'demo', name: 'Demo', patterns: ['demo.**'] });
    for (const userId of [aliceId, bobId]) await policy.assignRole(userId, 'demo');
    const registered = await registerClient(gw.url, {
      client_name: 'Shared app',
      redirect_uris: ['http://127.0.0.1/callback'],
    });
    const client = {
      clientId: String(registered.body.client_id),
      redirectUri: 'http://127.0.0.1:50500/callback',
    };
    const alices = String((await signIn(gw, alice, client)).body.access_token);
    const bobs = String((await signIn(gw, bob, client)).body.access_token);
    const [aliceEndpoint] = await listEndpoints(db, aliceId);
    const [bobEndpoint] = await listEndpoints(db, bobId);
    expect(aliceEndpoint?.id).toBeDefined();
    expect(bobEndpoint?.id).not.toBe(aliceEndpoint?.id);

    // Bob narrows his endpoint to discovery mode; Alice's token still serves her whole role.
    const patched = await bob.browse(`/api/connections/mcp-endpoints/${bobEndpoint?.id}`, {
      method: 'PATCH',
      body: { userId: bobId, mode: 'discovery' },
    });
    expect(patched.status).toBe(200);
    const { client: asAlice } = await connectV1(gw.url, alices);
    expect(names((await asAlice.listTools()).tools)).toContain('demo.echo.say');
    const { client: asBob } = await connectV1(gw.url, bobs);
    expect(names((await asBob.listTools()).tools)).toEqual([
      'gateway.call_tool',
      'gateway.describe_tools',
      'gateway.search_tools',
    ]);
    await asAlice.callTool({ name: 'demo.echo.say', arguments: { text: 'alice' } });
    const records = await db
      .selectFrom('executions')
      .select(['user_id', 'endpoint_id', 'client_id'])
      .where('tool_path', '=', 'demo.echo.say')
      .execute();
    expect(records).toEqual([
      { user_id: aliceId, endpoint_id: aliceEndpoint?.id, client_id: client.clientId },
    ]);

    // Alice's session cannot reach Bob's endpoint: acting for Bob is forbidden, and among her
    // own endpoints his is not found.
    for (const [userId, status] of [
      [bobId, 403],
      [aliceId, 404],
    ] as const) {
      const change = await alice.browse(`/api/connections/mcp-endpoints/${bobEndpoint?.id}`, {
        method: 'PATCH',
        body: { userId, mode: 'tools' },
      });
      expect(change.status, userId).toBe(status);
      const remove = await alice.browse(
        `/api/connections/mcp-endpoints/${bobEndpoint?.id}?userId=${userId}`,
        { method: 'DELETE' },
      );
      expect(remove.status, userId).toBe(status);
    }
    expect((await listEndpoints(db, bobId)).map((endpoint) => endpoint.mode)).toEqual([
      'discovery',
    ]);

    // Her access token works in the header only, never as the URL form of an endpoint.
    const inPath = await fetch(`${gw.url}/mcp/${alices}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(inPath.status).toBe(401);
    expect(await inPath.text()).not.toContain(alices);
  });
});
