import { describe, expect, it } from 'vitest';
import { createTestGateway } from '#test/support/test-gateway.js';
import { endpointListSchema } from './schemas.js';

// `/api/connections/mcp-endpoints` sits under `/api/connections/:id`: these pin down that no
// request meant for the endpoints ever lands on a connection route, or the other way round.
describe('routing of /api/connections/mcp-endpoints beside /api/connections/:id', () => {
  it('sends GET and POST on the collection to the endpoint routes', async () => {
    const gw = await createTestGateway();
    const alice = await gw.createUser();

    const created = await gw.request('POST', '/api/connections/mcp-endpoints', {
      as: alice,
      body: { userId: alice.id, name: 'Claude' },
    });
    expect(created.status).toBe(201);
    expect(await created.json()).toHaveProperty('token');

    const listed = await gw.request('GET', `/api/connections/mcp-endpoints?userId=${alice.id}`, {
      as: alice,
    });
    expect(listed.status).toBe(200);
    expect(endpointListSchema.parse(await listed.json()).endpoints).toHaveLength(1);
    expect(await gw.services.database.db.selectFrom('connections').select('id').execute()).toEqual(
      [],
    );
  });

  it('answers DELETE and decrypt on the collection path as unknown connections', async () => {
    const gw = await createTestGateway();
    const alice = await gw.createUser();

    const deleted = await gw.request(
      'DELETE',
      `/api/connections/mcp-endpoints?userId=${alice.id}`,
      {
        as: alice,
      },
    );
    expect(deleted.status).toBe(404);
    expect(await deleted.json()).toEqual({
      error: { code: 'not_found', message: 'No connection mcp-endpoints' },
    });

    const decrypt = await gw.request('POST', '/api/connections/mcp-endpoints/decrypt', {
      as: 'service',
    });
    expect(decrypt.status).toBe(404);
  });
});
