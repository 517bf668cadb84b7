import { describe, expect, it } from 'vitest';
import { createTestGateway, type TestGateway, type TestUser } from '#test/support/test-gateway.js';
import { connectionCreatedSchema, connectionListSchema } from './schemas.js';

const SECRET = 'zebra-horse-battery-staple-41d0e2';
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

async function connect(gw: TestGateway, user: TestUser, body: Record<string, unknown> = {}) {
  const res = await gw.request('POST', '/api/connections', {
    as: user,
    body: { userId: user.id, toolId: 'github', instanceName: 'Work', secret: SECRET, ...body },
  });
  expect(res.status).toBe(201);
  return connectionCreatedSchema.parse(await res.json());
}

describe('GET /api/connections', () => {
  it("lists the user's own connections in the snake_case shape, masked, without description", async () => {
    const gw = await createTestGateway();
    const alice = await gw.createUser();
    const bob = await gw.createUser();
    const root = await connect(gw, alice, { description: 'hidden in lists', workspaceId: 'ws-1' });
    const child = await connect(gw, alice, { instanceName: 'Child', parentId: root.id });
    await connect(gw, bob);

    const res = await gw.request('GET', `/api/connections?userId=${alice.id}`, { as: alice });

    expect(res.status).toBe(200);
    const body = await res.json();
    const { connections } = connectionListSchema.parse(body);
    const item = (
      id: string,
      instanceName: string,
      workspaceId: string | null,
      parentId: string | null,
    ) => ({
      id,
      user_id: alice.id,
      tool_id: 'github',
      instance_name: instanceName,
      masked_secret: `••••••••${SECRET.slice(-4)}`,
      workspace_id: workspaceId,
      parent_id: parentId,
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });
    expect(connections).toHaveLength(2);
    expect(body).toEqual({
      connections: expect.arrayContaining([
        item(root.id, 'Work', 'ws-1', null),
        item(child.id, 'Child', null, root.id),
      ]),
    });
    const order = [...connections].sort(
      (a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id),
    );
    expect(connections).toEqual(order);
    expect(JSON.stringify(body)).not.toContain('hidden in lists');
    expect(JSON.stringify(body)).not.toContain(SECRET);
  });

  it('leaves out team connections', async () => {
    const gw = await createTestGateway();
    const admin = await gw.createUser({ admin: true });
    const { id } = await connect(gw, admin);
    await gw.services.database.db
      .updateTable('connections')
      .set({ owner: 'team' })
      .where('id', '=', id)
      .execute();

    const res = await gw.request('GET', `/api/connections?userId=${admin.id}`, { as: admin });

    expect(await res.json()).toEqual({ connections: [] });
  });

  it('lets an admin and the service secret list any user', async () => {
    const gw = await createTestGateway();
    const alice = await gw.createUser();
    const admin = await gw.createUser({ admin: true });
    const { id } = await connect(gw, alice);

    for (const as of [admin, 'service'] as const) {
      const res = await gw.request('GET', `/api/connections?userId=${alice.id}`, { as });
      expect(res.status).toBe(200);
      expect(connectionListSchema.parse(await res.json()).connections.map((c) => c.id)).toEqual([
        id,
      ]);
    }
  });

  it("answers 403 for another user's userId and 401 without credentials", async () => {
    const gw = await createTestGateway();
    const alice = await gw.createUser();
    const bob = await gw.createUser();
    await connect(gw, alice);

    const forbidden = await gw.request('GET', `/api/connections?userId=${alice.id}`, { as: bob });
    expect(forbidden.status).toBe(403);
    expect(await forbidden.json()).toEqual({
      error: { code: 'forbidden', message: expect.any(String) },
    });

    const anonymous = await gw.request('GET', `/api/connections?userId=${alice.id}`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: { code: 'unauthorized' } });
  });

  it('answers 400 without userId, or with an unknown parameter', async () => {
    const gw = await createTestGateway();
    const alice = await gw.createUser();

    const missing = await gw.request('GET', '/api/connections', { as: alice });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({
      error: {
        code: 'validation_failed',
        message: 'Invalid query',
        details: [{ path: 'userId', message: expect.any(String) }],
      },
    });

    const unknown = await gw.request('GET', `/api/connections?userId=${alice.id}&all=1`, {
      as: alice,
    });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({ error: { code: 'validation_failed' } });
  });
});
