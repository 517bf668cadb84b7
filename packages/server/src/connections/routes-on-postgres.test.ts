import { describe, expect, it } from 'vitest';
import { postgresTestUrl } from '#test/db/test-database.js';
import { createPostgresTestGateway } from '#test/support/postgres-test-gateway.js';
import { connectionCreatedSchema, connectionListSchema } from './schemas.js';

const url = postgresTestUrl();
const SECRET = 'zebra-horse-battery-staple-9b8c7d';

describe.skipIf(!url)('connection routes on PostgreSQL', () => {
  it('creates, nests, lists, decrypts and deletes a tree', async () => {
    const gw = await createPostgresTestGateway(url!);
    expect(gw.services.database.dialect).toBe('postgres');
    const alice = await gw.createUser();
    const create = async (instanceName: string, parentId?: string) => {
      const res = await gw.request('POST', '/api/connections', {
        as: alice,
        body: { userId: alice.id, toolId: 'linear', instanceName, secret: SECRET, parentId },
      });
      expect(res.status).toBe(201);
      return connectionCreatedSchema.parse(await res.json()).id;
    };
    const root = await create('Root');
    const child = await create('Child', root);
    const grandchild = await create('Grandchild', child);
    const sibling = await create('Sibling');

    const duplicate = await gw.request('POST', '/api/connections', {
      as: alice,
      body: {
        userId: alice.id,
        toolId: 'linear',
        instanceName: 'Child',
        secret: SECRET,
        parentId: root,
      },
    });
    expect(duplicate.status).toBe(409);

    const listed = await gw.request('GET', `/api/connections?userId=${alice.id}`, { as: alice });
    const json = await listed.json();
    const { connections } = connectionListSchema.parse(json);
    expect(connections.map((c) => c.id).sort()).toEqual([root, child, grandchild, sibling].sort());
    const childItem = {
      id: child,
      user_id: alice.id,
      tool_id: 'linear',
      instance_name: 'Child',
      masked_secret: `••••••••${SECRET.slice(-4)}`,
      workspace_id: null,
      parent_id: root,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    };
    expect(json).toEqual({ connections: expect.arrayContaining([childItem]) });

    const decrypted = await gw.request('POST', `/api/connections/${grandchild}/decrypt`, {
      as: 'service',
    });
    expect(await decrypted.json()).toEqual({ id: grandchild, secret: SECRET });

    const deleted = await gw.request('DELETE', `/api/connections/${root}?userId=${alice.id}`, {
      as: alice,
    });
    expect(await deleted.json()).toEqual({ deleted: [root, child, grandchild] });
    const after = await gw.request('GET', `/api/connections?userId=${alice.id}`, { as: alice });
    expect(connectionListSchema.parse(await after.json()).connections.map((c) => c.id)).toEqual([
      sibling,
    ]);
    expect(gw.logs()).not.toContain(SECRET.slice(0, -4));
  });
});
