import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTestGateway } from '#test/support/test-gateway.js';
import { maskSecret } from '../secrets/index.js';
import { connectionCreatedSchema } from './schemas.js';

const SECRET = 'zebra-horse-battery-staple-7f3a9c';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const errorWithDetails = z.object({
  error: z.object({ details: z.array(z.object({ path: z.string(), message: z.string() })) }),
});

async function setup() {
  const gw = await createTestGateway();
  const alice = await gw.createUser();
  const bob = await gw.createUser();
  return { gw, alice, bob };
}

describe('POST /api/connections', () => {
  it('stores the secret encrypted and answers with its masked form', async () => {
    const { gw, alice } = await setup();

    const res = await gw.request('POST', '/api/connections', {
      as: alice,
      body: { userId: alice.id, toolId: 'github', instanceName: 'Work', secret: SECRET },
    });

    expect(res.status).toBe(201);
    const json = await res.json();
    expect(json).toEqual({
      id: expect.stringMatching(UUID),
      toolId: 'github',
      instanceName: 'Work',
      maskedSecret: `••••••••${SECRET.slice(-4)}`,
    });
    const row = await gw.services.database.db
      .selectFrom('connections')
      .selectAll()
      .where('id', '=', connectionCreatedSchema.parse(json).id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      user_id: alice.id,
      owner: 'user',
      description: null,
      parent_id: null,
    });
    expect(row.encrypted_secret).toMatch(/^[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/);
    expect(row.encrypted_secret).not.toContain(SECRET);
    expect(gw.services.secrets.decrypt(row.encrypted_secret)).toBe(SECRET);
  });

  it('keeps the optional description, workspace and parent', async () => {
    const { gw, alice } = await setup();
    const parent = await gw.request('POST', '/api/connections', {
      as: alice,
      body: { userId: alice.id, toolId: 'linear', instanceName: 'Acme', secret: SECRET },
    });
    const parentId = connectionCreatedSchema.parse(await parent.json()).id;

    const res = await gw.request('POST', '/api/connections', {
      as: alice,
      body: {
        userId: alice.id,
        toolId: 'linear',
        instanceName: 'Project A',
        secret: 'short',
        description: 'The A team',
        workspaceId: 'ws-42',
        parentId,
      },
    });

    expect(res.status).toBe(201);
    const { id } = connectionCreatedSchema.parse(await res.json());
    const row = await gw.services.database.db
      .selectFrom('connections')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      description: 'The A team',
      workspace_id: 'ws-42',
      parent_id: parentId,
      masked_secret: maskSecret('short'),
    });
  });

  it('rejects invalid fields with 400 validation_failed and the issues', async () => {
    const { gw, alice } = await setup();

    const res = await gw.request('POST', '/api/connections', {
      as: alice,
      body: { userId: alice.id, toolId: 'GitHub!', instanceName: '', secret: 'x'.repeat(10_001) },
    });

    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body).toEqual({
      error: {
        code: 'validation_failed',
        message: 'Invalid body',
        details: expect.arrayContaining([
          { path: 'toolId', message: expect.any(String) },
          { path: 'instanceName', message: expect.any(String) },
          { path: 'secret', message: expect.any(String) },
        ]),
      },
    });
    expect(errorWithDetails.parse(body).error.details).toHaveLength(3);
    expect(JSON.stringify(body)).not.toContain('x'.repeat(100));
  });

  it('rejects missing fields, a too long description and unknown fields', async () => {
    const { gw, alice } = await setup();

    const missing = await gw.request('POST', '/api/connections', {
      as: alice,
      body: { userId: alice.id },
    });
    expect(missing.status).toBe(400);
    expect(
      errorWithDetails
        .parse(await missing.json())
        .error.details.map((d) => d.path)
        .sort(),
    ).toEqual(['instanceName', 'secret', 'toolId']);

    const unknown = await gw.request('POST', '/api/connections', {
      as: alice,
      body: {
        userId: alice.id,
        toolId: 'github',
        instanceName: 'W',
        secret: SECRET,
        owner: 'team',
      },
    });
    expect(unknown.status).toBe(400);
    const unknownBody = await unknown.json();
    expect(unknownBody).toEqual({
      error: {
        code: 'validation_failed',
        message: 'Invalid body',
        details: [{ path: '', message: expect.stringContaining('owner') }],
      },
    });
    expect(JSON.stringify(unknownBody)).not.toContain(SECRET);

    const long = await gw.request('POST', '/api/connections', {
      as: alice,
      body: {
        userId: alice.id,
        toolId: 'github',
        instanceName: 'W',
        secret: SECRET,
        description: 'd'.repeat(1001),
      },
    });
    expect(long.status).toBe(400);
    expect(errorWithDetails.parse(await long.json()).error.details).toEqual([
      { path: 'description', message: expect.any(String) },
    ]);
  });

  it('answers 401 without credentials', async () => {
    const { gw, alice } = await setup();

    const res = await gw.request('POST', '/api/connections', {
      body: { userId: alice.id, toolId: 'github', instanceName: 'Work', secret: SECRET },
    });

    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      error: { code: 'unauthorized', message: expect.any(String) },
    });
  });

  it("answers 403 for another user's userId and stores nothing", async () => {
    const { gw, alice, bob } = await setup();

    const res = await gw.request('POST', '/api/connections', {
      as: bob,
      body: { userId: alice.id, toolId: 'github', instanceName: 'Work', secret: SECRET },
    });

    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: { code: 'forbidden', message: expect.any(String) } });
    expect(await gw.services.database.db.selectFrom('connections').select('id').execute()).toEqual(
      [],
    );
  });

  it('lets an admin and the service secret act for any user', async () => {
    const { gw, alice } = await setup();
    const admin = await gw.createUser({ admin: true });

    for (const [as, instanceName] of [
      [admin, 'by admin'],
      ['service', 'by service'],
    ] as const) {
      const res = await gw.request('POST', '/api/connections', {
        as,
        body: { userId: alice.id, toolId: 'github', instanceName, secret: SECRET },
      });
      expect(res.status).toBe(201);
    }
    const rows = await gw.services.database.db
      .selectFrom('connections')
      .select(['user_id', 'instance_name'])
      .orderBy('instance_name')
      .execute();
    expect(rows).toEqual([
      { user_id: alice.id, instance_name: 'by admin' },
      { user_id: alice.id, instance_name: 'by service' },
    ]);
  });

  it('answers 404 for an unknown user', async () => {
    const { gw } = await setup();

    const res = await gw.request('POST', '/api/connections', {
      as: 'service',
      body: { userId: 'no-such-user', toolId: 'github', instanceName: 'Work', secret: SECRET },
    });

    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      error: { code: 'not_found', message: 'No user no-such-user' },
    });
  });

  it("answers 404 for an unknown parent or another user's, and 400 for another tool's", async () => {
    const { gw, alice, bob } = await setup();
    const create = async (as: typeof alice, body: Record<string, unknown>) =>
      gw.request('POST', '/api/connections', {
        as,
        body: { userId: as.id, toolId: 'github', instanceName: 'Child', secret: SECRET, ...body },
      });
    const bobsRoot = connectionCreatedSchema.parse(
      await (await create(bob, { instanceName: 'Root' })).json(),
    );
    const alicesRoot = connectionCreatedSchema.parse(
      await (await create(alice, { instanceName: 'Root' })).json(),
    );

    const unknown = crypto.randomUUID();
    const missing = await create(alice, { parentId: unknown });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({
      error: { code: 'not_found', message: `No connection ${unknown}` },
    });

    const theirs = await create(alice, { parentId: bobsRoot.id });
    expect(theirs.status).toBe(404);
    expect(await theirs.json()).toEqual({
      error: { code: 'not_found', message: `No connection ${bobsRoot.id}` },
    });

    const otherTool = await create(alice, { parentId: alicesRoot.id, toolId: 'gitlab' });
    expect(otherTool.status).toBe(400);
    expect(await otherTool.json()).toEqual({
      error: { code: 'bad_request', message: expect.stringContaining('"github", not "gitlab"') },
    });

    expect((await create(alice, { parentId: alicesRoot.id })).status).toBe(201);
  });

  it('answers 409 for the same user, tool, parent and name', async () => {
    const { gw, alice } = await setup();
    const body = { userId: alice.id, toolId: 'github', instanceName: 'Work', secret: SECRET };
    expect((await gw.request('POST', '/api/connections', { as: alice, body })).status).toBe(201);

    const res = await gw.request('POST', '/api/connections', {
      as: alice,
      body: { ...body, secret: 'another-secret-value' },
    });

    expect(res.status).toBe(409);
    const error = await res.json();
    expect(error).toEqual({
      error: { code: 'conflict', message: expect.stringContaining('"Work"') },
    });
    expect(JSON.stringify(error)).not.toContain('another-secret-value');
  });
});
