import { describe, expect, it } from 'vitest';
import { json } from '#test/registry/test-plugins.js';
import { createTestGateway } from '#test/support/test-gateway.js';
import type { UserItem } from './schemas.js';

describe('GET /api/users', () => {
  it('lists every user, oldest first, with the role that applies', async () => {
    const gw = await createTestGateway();
    const admin = await gw.createUser({ email: 'ada@example.test', name: 'Ada', admin: true });
    const member = await gw.createUser({ email: 'bob@example.test', name: 'Bob' });
    const res = await gw.request('GET', '/api/users', { as: admin });
    expect(res.status).toBe(200);
    const { users } = await json<{ users: UserItem[] }>(res);
    // Two users made in the same millisecond (a quick machine) come in the order of their ids.
    const oldestFirst = [...users].sort(
      (a, b) => a.createdAt.localeCompare(b.createdAt) || (a.id < b.id ? -1 : 1),
    );
    expect(users).toEqual(oldestFirst);
    expect(users).toEqual(
      expect.arrayContaining([
        {
          id: admin.id,
          name: 'Ada',
          email: 'ada@example.test',
          createdAt: expect.any(String),
          roleId: 'admin',
          roleAssigned: true,
        },
        {
          id: member.id,
          name: 'Bob',
          email: 'bob@example.test',
          createdAt: expect.any(String),
          roleId: 'member',
          roleAssigned: false,
        },
      ]),
    );
    expect(users).toHaveLength(2);
    const serviceRes = await gw.request('GET', '/api/users', { as: 'service' });
    expect(serviceRes.status).toBe(200);
  });

  it('is for admins only (403), and needs credentials (401)', async () => {
    const gw = await createTestGateway();
    const member = await gw.createUser();
    expect((await gw.request('GET', '/api/users', { as: member })).status).toBe(403);
    expect((await gw.request('GET', '/api/users')).status).toBe(401);
  });
});
