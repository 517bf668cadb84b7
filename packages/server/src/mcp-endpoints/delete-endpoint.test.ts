import { describe, expect, it } from 'vitest';
import { endpointOwner } from '#test/support/endpoint-owner.js';
import { createTestGateway, type TestGateway, type TestUser } from '#test/support/test-gateway.js';

async function createEndpoint(gw: TestGateway, user: TestUser, name = 'Claude') {
  const res = await gw.request('POST', '/api/connections/mcp-endpoints', {
    as: user,
    body: { userId: user.id, name },
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; token: string };
}

describe('DELETE /api/connections/mcp-endpoints/:id', () => {
  it('deletes the endpoint and its token stops working at once', async () => {
    const gw = await createTestGateway();
    const alice = await gw.createUser();
    const endpoint = await createEndpoint(gw, alice);
    const kept = await createEndpoint(gw, alice, 'Kept');
    expect(await endpointOwner(gw.services.database, endpoint.token)).toEqual({
      id: endpoint.id,
      userId: alice.id,
    });

    const res = await gw.request(
      'DELETE',
      `/api/connections/mcp-endpoints/${endpoint.id}?userId=${alice.id}`,
      {
        as: alice,
      },
    );

    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ deleted: [endpoint.id] });
    expect(await endpointOwner(gw.services.database, endpoint.token)).toBeUndefined();
    expect(await endpointOwner(gw.services.database, kept.token)).toEqual({
      id: kept.id,
      userId: alice.id,
    });
  });

  it("answers 404 for another user's endpoint, as for an unknown or malformed id", async () => {
    const gw = await createTestGateway();
    const alice = await gw.createUser();
    const bob = await gw.createUser();
    const alices = await createEndpoint(gw, alice);

    for (const id of [alices.id, crypto.randomUUID(), 'not-a-uuid']) {
      const res = await gw.request(
        'DELETE',
        `/api/connections/mcp-endpoints/${id}?userId=${bob.id}`,
        {
          as: bob,
        },
      );
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({
        error: { code: 'not_found', message: `No MCP endpoint ${id}` },
      });
    }
    expect(await endpointOwner(gw.services.database, alices.token)).toBeDefined();
  });

  it("answers 403 for another user's userId, 401 without credentials, 400 without userId", async () => {
    const gw = await createTestGateway();
    const alice = await gw.createUser();
    const bob = await gw.createUser();
    const { id, token } = await createEndpoint(gw, alice);
    const url = `/api/connections/mcp-endpoints/${id}`;

    expect((await gw.request('DELETE', `${url}?userId=${alice.id}`, { as: bob })).status).toBe(403);
    expect((await gw.request('DELETE', `${url}?userId=${alice.id}`)).status).toBe(401);
    const missing = await gw.request('DELETE', url, { as: alice });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: { code: 'validation_failed' } });
    expect(await endpointOwner(gw.services.database, token)).toBeDefined();
  });

  it('lets an admin and the service secret delete for any user', async () => {
    const gw = await createTestGateway();
    const alice = await gw.createUser();
    const admin = await gw.createUser({ admin: true });
    const first = await createEndpoint(gw, alice, 'First');
    const second = await createEndpoint(gw, alice, 'Second');

    for (const [as, endpoint] of [
      [admin, first],
      ['service', second],
    ] as const) {
      const res = await gw.request(
        'DELETE',
        `/api/connections/mcp-endpoints/${endpoint.id}?userId=${alice.id}`,
        {
          as,
        },
      );
      expect(await res.json()).toEqual({ deleted: [endpoint.id] });
    }
  });
});
