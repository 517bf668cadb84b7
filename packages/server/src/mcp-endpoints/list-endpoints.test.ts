import { describe, expect, it } from 'vitest';
import { endpointOwner } from '#test/support/endpoint-owner.js';
import { createTestGateway, type TestGateway, type TestUser } from '#test/support/test-gateway.js';
import { maskToken } from '../secrets/index.js';
import { endpointCreatedSchema, endpointListSchema } from './schemas.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

async function createEndpoint(gw: TestGateway, user: TestUser, name: string, description?: string) {
  const res = await gw.request('POST', '/api/connections/mcp-endpoints', {
    as: user,
    body: { userId: user.id, name, description },
  });
  expect(res.status).toBe(201);
  return endpointCreatedSchema.parse(await res.json());
}

describe('GET /api/connections/mcp-endpoints', () => {
  it("lists the user's endpoints with masked tokens and their last use", async () => {
    const gw = await createTestGateway();
    const alice = await gw.createUser();
    const bob = await gw.createUser();
    const first = await createEndpoint(gw, alice, 'Claude', 'desktop');
    const second = await createEndpoint(gw, alice, 'Cursor');
    await createEndpoint(gw, bob, 'Theirs');
    await endpointOwner(gw.services.database, second.token);

    const url = `/api/connections/mcp-endpoints?userId=${alice.id}`;
    await expect
      .poll(
        async () =>
          // By id: the list goes by creation time, then by id, and both may be made in the same
          // millisecond.
          endpointListSchema
            .parse(await (await gw.request('GET', url, { as: alice })).json())
            .endpoints.find((endpoint) => endpoint.id === second.id)?.lastUsedAt,
      )
      .toMatch(ISO);
    const res = await gw.request('GET', url, { as: alice });

    expect(res.status).toBe(200);
    const body = await res.json();
    const { endpoints } = endpointListSchema.parse(body);
    const item = (created: typeof first, description: string | null, lastUsedAt: unknown) => ({
      id: created.id,
      name: created.name,
      description,
      maskedToken: maskToken(created.token),
      createdAt: created.createdAt,
      lastUsedAt,
      kind: 'token',
      clientId: null,
      tools: null,
      mode: 'tools',
    });
    expect(endpoints).toHaveLength(2);
    expect(body).toEqual({
      endpoints: expect.arrayContaining([
        item(first, 'desktop', null),
        item(second, null, expect.stringMatching(ISO)),
      ]),
    });
    expect(endpoints[0]?.maskedToken).toMatch(/^gw_mcp_•{8}[0-9A-Za-z]{4}$/);
    const text = JSON.stringify(body);
    expect(text).not.toContain(first.token);
    expect(text).not.toContain(second.token);
  });

  it('lets an admin and the service secret list any user; others get 403, anonymous 401', async () => {
    const gw = await createTestGateway();
    const alice = await gw.createUser();
    const bob = await gw.createUser();
    const admin = await gw.createUser({ admin: true });
    const { id } = await createEndpoint(gw, alice, 'Claude');
    const url = `/api/connections/mcp-endpoints?userId=${alice.id}`;

    for (const as of [admin, 'service'] as const) {
      const res = await gw.request('GET', url, { as });
      expect(res.status).toBe(200);
      expect(endpointListSchema.parse(await res.json()).endpoints.map((e) => e.id)).toEqual([id]);
    }
    expect((await gw.request('GET', url, { as: bob })).status).toBe(403);
    expect((await gw.request('GET', url)).status).toBe(401);
  });

  it('answers 400 without userId', async () => {
    const gw = await createTestGateway();
    const alice = await gw.createUser();

    const res = await gw.request('GET', '/api/connections/mcp-endpoints', { as: alice });

    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: {
        code: 'validation_failed',
        message: 'Invalid query',
        details: [{ path: 'userId', message: expect.any(String) }],
      },
    });
  });
});
