import { describe, expect, it } from 'vitest';
import { postgresTestUrl } from '#test/db/test-database.js';
import { endpointOwner } from '#test/support/endpoint-owner.js';
import { createPostgresTestGateway } from '#test/support/postgres-test-gateway.js';
import { endpointCreatedSchema, endpointListSchema } from './schemas.js';

const url = postgresTestUrl();

describe.skipIf(!url)('MCP endpoint routes on PostgreSQL', () => {
  it('creates, lists and deletes an endpoint whose token works until then', async () => {
    const gw = await createPostgresTestGateway(url!);
    expect(gw.services.database.dialect).toBe('postgres');
    const alice = await gw.createUser();

    const created = await gw.request('POST', '/api/connections/mcp-endpoints', {
      as: alice,
      body: { userId: alice.id, name: 'Claude', description: 'desktop' },
    });
    expect(created.status).toBe(201);
    const { id, token } = endpointCreatedSchema.parse(await created.json());
    expect(await endpointOwner(gw.services.database, token)).toEqual({ id, userId: alice.id });

    const again = await gw.request('POST', '/api/connections/mcp-endpoints', {
      as: alice,
      body: { userId: alice.id, name: 'Claude' },
    });
    expect(again.status).toBe(409);

    const listUrl = `/api/connections/mcp-endpoints?userId=${alice.id}`;
    await expect
      .poll(
        async () =>
          endpointListSchema.parse(await (await gw.request('GET', listUrl, { as: alice })).json())
            .endpoints[0]?.lastUsedAt,
      )
      .toEqual(expect.any(String));
    const listed = await (await gw.request('GET', listUrl, { as: alice })).json();
    expect(listed).toEqual({
      endpoints: [
        {
          id,
          name: 'Claude',
          description: 'desktop',
          maskedToken: expect.stringMatching(/^gw_mcp_•{8}/),
          createdAt: expect.any(String),
          lastUsedAt: expect.any(String),
          kind: 'token',
          clientId: null,
          tools: null,
          mode: 'tools',
        },
      ],
    });

    const deleted = await gw.request(
      'DELETE',
      `/api/connections/mcp-endpoints/${id}?userId=${alice.id}`,
      {
        as: alice,
      },
    );
    expect(await deleted.json()).toEqual({ deleted: [id] });
    expect(await endpointOwner(gw.services.database, token)).toBeUndefined();
  });
});
