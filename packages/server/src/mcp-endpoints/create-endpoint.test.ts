import { describe, expect, it } from 'vitest';
import { endpointOwner } from '#test/support/endpoint-owner.js';
import { createTestGateway } from '#test/support/test-gateway.js';
import { endpointCreatedSchema } from './schemas.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('POST /api/connections/mcp-endpoints', () => {
  it('creates an endpoint and shows its working token once, uncached', async () => {
    const gw = await createTestGateway();
    const alice = await gw.createUser();

    const res = await gw.request('POST', '/api/connections/mcp-endpoints', {
      as: alice,
      body: { userId: alice.id, name: 'Claude Desktop', description: 'laptop' },
    });

    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const json = await res.json();
    expect(json).toEqual({
      id: expect.stringMatching(UUID),
      name: 'Claude Desktop',
      token: expect.stringMatching(/^gw_mcp_[0-9A-Za-z]{40}$/),
      createdAt: expect.stringMatching(ISO),
      tools: null,
      mode: 'tools',
    });
    const body = endpointCreatedSchema.parse(json);
    expect(await endpointOwner(gw.services.database, body.token)).toEqual({
      id: body.id,
      userId: alice.id,
    });
  });

  it('rejects invalid and unknown fields with 400', async () => {
    const gw = await createTestGateway();
    const alice = await gw.createUser();

    const invalid = await gw.request('POST', '/api/connections/mcp-endpoints', {
      as: alice,
      body: { userId: alice.id, name: 'n'.repeat(101), description: 'd'.repeat(1001) },
    });
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toEqual({
      error: {
        code: 'validation_failed',
        message: 'Invalid body',
        details: [
          { path: 'name', message: expect.any(String) },
          { path: 'description', message: expect.any(String) },
        ],
      },
    });

    const empty = await gw.request('POST', '/api/connections/mcp-endpoints', {
      as: alice,
      body: { userId: alice.id, name: '' },
    });
    expect(empty.status).toBe(400);

    const unknown = await gw.request('POST', '/api/connections/mcp-endpoints', {
      as: alice,
      body: { userId: alice.id, name: 'x', token: 'gw_mcp_chosen' },
    });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toEqual({
      error: {
        code: 'validation_failed',
        message: 'Invalid body',
        details: [{ path: '', message: expect.stringContaining('token') }],
      },
    });
  });

  it("answers 401 without credentials and 403 for another user's userId", async () => {
    const gw = await createTestGateway();
    const alice = await gw.createUser();
    const bob = await gw.createUser();
    const body = { userId: alice.id, name: 'Claude' };

    const anonymous = await gw.request('POST', '/api/connections/mcp-endpoints', { body });
    expect(anonymous.status).toBe(401);
    const forbidden = await gw.request('POST', '/api/connections/mcp-endpoints', { as: bob, body });
    expect(forbidden.status).toBe(403);
    expect(await forbidden.json()).toMatchObject({ error: { code: 'forbidden' } });
    expect(
      await gw.services.database.db.selectFrom('mcp_endpoints').select('id').execute(),
    ).toEqual([]);
  });

  it('lets an admin and the service secret create for any user, and answers 404 for no user', async () => {
    const gw = await createTestGateway();
    const alice = await gw.createUser();
    const admin = await gw.createUser({ admin: true });

    for (const [as, name] of [
      [admin, 'by admin'],
      ['service', 'by service'],
    ] as const) {
      const res = await gw.request('POST', '/api/connections/mcp-endpoints', {
        as,
        body: { userId: alice.id, name },
      });
      expect(res.status).toBe(201);
      const { token } = endpointCreatedSchema.parse(await res.json());
      expect((await endpointOwner(gw.services.database, token))?.userId).toBe(alice.id);
    }

    const missing = await gw.request('POST', '/api/connections/mcp-endpoints', {
      as: 'service',
      body: { userId: 'ghost', name: 'x' },
    });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({
      error: { code: 'not_found', message: 'No user ghost' },
    });
  });

  it('answers 409 for a name the user already uses', async () => {
    const gw = await createTestGateway();
    const alice = await gw.createUser();
    const bob = await gw.createUser();
    const create = (user: typeof alice) =>
      gw.request('POST', '/api/connections/mcp-endpoints', {
        as: user,
        body: { userId: user.id, name: 'Claude' },
      });
    expect((await create(alice)).status).toBe(201);

    const res = await create(alice);

    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({
      error: { code: 'conflict', message: expect.stringContaining('"Claude"') },
    });
    expect((await create(bob)).status).toBe(201);
  });
});
