import { describe, expect, it } from 'vitest';
import { createTestGateway, type TestGateway, type TestUser } from '#test/support/test-gateway.js';
import { connectionCreatedSchema, connectionListSchema } from './schemas.js';

async function connect(
  gw: TestGateway,
  user: TestUser,
  instanceName: string,
  parentId?: string,
): Promise<string> {
  const res = await gw.request('POST', '/api/connections', {
    as: user,
    body: { userId: user.id, toolId: 'notion', instanceName, secret: 'secret-value-1', parentId },
  });
  expect(res.status).toBe(201);
  return connectionCreatedSchema.parse(await res.json()).id;
}

async function listedIds(gw: TestGateway, user: TestUser): Promise<string[]> {
  const res = await gw.request('GET', `/api/connections?userId=${user.id}`, { as: user });
  return connectionListSchema
    .parse(await res.json())
    .connections.map((c) => c.id)
    .sort();
}

describe('DELETE /api/connections/:id', () => {
  it('deletes a three-level tree and leaves a sibling tree intact', async () => {
    const gw = await createTestGateway();
    const alice = await gw.createUser();
    const root = await connect(gw, alice, 'Root');
    const child = await connect(gw, alice, 'Child', root);
    const grandchild = await connect(gw, alice, 'Grandchild', child);
    const sibling = await connect(gw, alice, 'Sibling');
    const siblingChild = await connect(gw, alice, 'Sibling child', sibling);

    const res = await gw.request('DELETE', `/api/connections/${root}?userId=${alice.id}`, {
      as: alice,
    });

    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ deleted: [root, child, grandchild] });
    expect(await listedIds(gw, alice)).toEqual([sibling, siblingChild].sort());
  });

  it("answers 404 for another user's connection, as for an unknown or malformed id", async () => {
    const gw = await createTestGateway();
    const alice = await gw.createUser();
    const bob = await gw.createUser();
    const alices = await connect(gw, alice, 'Work');
    const unknown = crypto.randomUUID();

    for (const id of [alices, unknown, 'not-a-uuid']) {
      const res = await gw.request('DELETE', `/api/connections/${id}?userId=${bob.id}`, {
        as: bob,
      });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({
        error: { code: 'not_found', message: `No connection ${id}` },
      });
    }
    expect(await listedIds(gw, alice)).toEqual([alices]);
  });

  it("answers 403 for another user's userId and 401 without credentials", async () => {
    const gw = await createTestGateway();
    const alice = await gw.createUser();
    const bob = await gw.createUser();
    const id = await connect(gw, alice, 'Work');

    const forbidden = await gw.request('DELETE', `/api/connections/${id}?userId=${alice.id}`, {
      as: bob,
    });
    expect(forbidden.status).toBe(403);
    expect(await forbidden.json()).toMatchObject({ error: { code: 'forbidden' } });

    const anonymous = await gw.request('DELETE', `/api/connections/${id}?userId=${alice.id}`);
    expect(anonymous.status).toBe(401);
    expect(await listedIds(gw, alice)).toEqual([id]);
  });

  it('answers 400 without userId', async () => {
    const gw = await createTestGateway();
    const alice = await gw.createUser();
    const id = await connect(gw, alice, 'Work');

    const res = await gw.request('DELETE', `/api/connections/${id}`, { as: alice });

    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: {
        code: 'validation_failed',
        message: 'Invalid query',
        details: [{ path: 'userId', message: expect.any(String) }],
      },
    });
  });

  it('lets an admin and the service secret delete for any user', async () => {
    const gw = await createTestGateway();
    const alice = await gw.createUser();
    const admin = await gw.createUser({ admin: true });
    const first = await connect(gw, alice, 'First');
    const second = await connect(gw, alice, 'Second');

    const byAdmin = await gw.request('DELETE', `/api/connections/${first}?userId=${alice.id}`, {
      as: admin,
    });
    expect(await byAdmin.json()).toEqual({ deleted: [first] });
    const byService = await gw.request('DELETE', `/api/connections/${second}?userId=${alice.id}`, {
      as: 'service',
    });
    expect(await byService.json()).toEqual({ deleted: [second] });
    expect(await listedIds(gw, alice)).toEqual([]);
  });
});
