import { describe, expect, it } from 'vitest';
import { forecastPlugin, json, notesPlugin } from '#test/registry/test-plugins.js';
import { createTestGateway, type TestGateway } from '#test/support/test-gateway.js';
import { generateToken, hashToken, maskToken } from '../secrets/index.js';

interface ErrorBody {
  error: { code: string; message: string; details?: unknown };
}
interface ResolvedTool {
  path: string;
  name: string;
  description: string;
  destructive: boolean;
  authProvider?: string;
  pluginId: string;
  inputSchema: Record<string, unknown>;
}

/** A gateway with the notes and forecast plugins registered. */
async function gateway(): Promise<TestGateway> {
  const gw = await createTestGateway({ plugins: [notesPlugin(), forecastPlugin()] });
  for (const [id, pluginId] of [
    ['notes', 'notes'],
    ['forecast', 'forecast'],
  ]) {
    const res = await gw.request('POST', '/api/registry/sources', {
      as: 'service',
      body: { type: 'plugin', id, namespace: pluginId, pluginId },
    });
    expect(res.status).toBe(201);
  }
  return gw;
}

async function resolvedPaths(gw: TestGateway, userId: string): Promise<string[]> {
  const res = await gw.request('GET', `/api/policy/resolve?userId=${userId}`, { as: 'service' });
  expect(res.status).toBe(200);
  return (await json<{ tools: ResolvedTool[] }>(res)).tools.map((tool) => tool.path);
}

/** A service account with `roleId` and its `gw_sa_` key (no route makes them yet). */
async function serviceAccount(gw: TestGateway, roleId: string) {
  const { db } = gw.services.database;
  const owner = await gw.createUser({ admin: true });
  const id = crypto.randomUUID();
  const now = new Date().toISOString();
  await db
    .insertInto('service_accounts')
    .values({ id, name: 'ci', role_id: roleId, created_by: owner.id, created_at: now })
    .execute();
  const token = generateToken('sa');
  await db
    .insertInto('api_tokens')
    .values({
      id: crypto.randomUUID(),
      kind: 'service_account',
      user_id: owner.id,
      service_account_id: id,
      name: 'ci',
      token_hash: hashToken(token),
      masked_token: maskToken(token),
      created_at: now,
      last_used_at: null,
      expires_at: null,
      revoked_at: null,
    })
    .execute();
  return { id, token };
}

const support = { id: 'support', name: 'Support', patterns: ['notes.notes.*'] };

describe('GET /api/policy/roles', () => {
  it('lists the built-in roles to any signed-in caller, and 401 without credentials', async () => {
    const gw = await gateway();
    const user = await gw.createUser();
    const res = await gw.request('GET', '/api/policy/roles', { as: user });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({
      roles: [
        { id: 'admin', name: 'Admin', patterns: ['**'] },
        { id: 'member', name: 'Member', patterns: [] },
      ],
    });
    expect((await gw.request('GET', '/api/policy/roles')).status).toBe(401);
  });
});

describe('POST /api/policy/roles', () => {
  it('creates a role (201, wrapped in `created`) and lists it', async () => {
    const gw = await gateway();
    const admin = await gw.createUser({ admin: true });
    const res = await gw.request('POST', '/api/policy/roles', { as: admin, body: support });
    expect(res.status).toBe(201);
    expect(await json(res)).toEqual({ created: support });
    const list = await json<{ roles: { id: string }[] }>(
      await gw.request('GET', '/api/policy/roles', { as: admin }),
    );
    expect(list.roles.map((role) => role.id)).toEqual(['admin', 'member', 'support']);
  });

  it('refuses a plain user (403), no credentials (401) and a duplicate id (409)', async () => {
    const gw = await gateway();
    const user = await gw.createUser();
    expect(
      (await gw.request('POST', '/api/policy/roles', { as: user, body: support })).status,
    ).toBe(403);
    expect((await gw.request('POST', '/api/policy/roles', { body: support })).status).toBe(401);
    expect(
      (await gw.request('POST', '/api/policy/roles', { as: 'service', body: support })).status,
    ).toBe(201);
    const again = await gw.request('POST', '/api/policy/roles', { as: 'service', body: support });
    expect(again.status).toBe(409);
    expect(await json<ErrorBody>(again)).toMatchObject({
      error: { code: 'conflict', message: expect.stringContaining('"support"') },
    });
  });

  it('validates with the shared role schema (400, every issue listed)', async () => {
    const gw = await gateway();
    const res = await gw.request('POST', '/api/policy/roles', {
      as: 'service',
      body: { id: 'Bad Id', name: '', patterns: ['notes..x', 'ok.**'] },
    });
    expect(res.status).toBe(400);
    const body = await json<{ error: { code: string; details: { path: string }[] } }>(res);
    expect(body.error.code).toBe('validation_failed');
    expect(body.error.details.map((issue) => issue.path)).toEqual(['id', 'name', 'patterns.0']);
    const unknownField = await gw.request('POST', '/api/policy/roles', {
      as: 'service',
      body: { ...support, extra: 1 },
    });
    expect(unknownField.status).toBe(400);
    const tooMany = await gw.request('POST', '/api/policy/roles', {
      as: 'service',
      body: { ...support, patterns: Array.from({ length: 1001 }, (_, i) => `p${i}.**`) },
    });
    expect(tooMany.status).toBe(400);
  });
});

describe('PUT /api/policy/roles/:id', () => {
  it("updates a role; the path's id wins over the body's", async () => {
    const gw = await gateway();
    await gw.request('POST', '/api/policy/roles', { as: 'service', body: support });
    const res = await gw.request('PUT', '/api/policy/roles/support', {
      as: 'service',
      body: { id: 'something-else', name: 'Support Desk', patterns: ['notes.**'] },
    });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({
      updated: { id: 'support', name: 'Support Desk', patterns: ['notes.**'] },
    });
    const list = await json<{ roles: { id: string }[] }>(
      await gw.request('GET', '/api/policy/roles', { as: 'service' }),
    );
    expect(list.roles.map((role) => role.id)).toEqual(['admin', 'member', 'support']);
  });

  it('answers 404 for an unknown role, 400 for an invalid body, 403 for a plain user', async () => {
    const gw = await gateway();
    const user = await gw.createUser();
    expect(
      (await gw.request('PUT', '/api/policy/roles/ghost', { as: 'service', body: support })).status,
    ).toBe(404);
    expect(
      (await gw.request('PUT', '/api/policy/roles/member', { as: 'service', body: { name: 'x' } }))
        .status,
    ).toBe(400);
    expect(
      (await gw.request('PUT', '/api/policy/roles/member', { as: user, body: support })).status,
    ).toBe(403);
    expect((await gw.request('PUT', '/api/policy/roles/member', { body: support })).status).toBe(
      401,
    );
  });
});

describe('DELETE /api/policy/roles/:id', () => {
  it('deletes a role; its users fall back to the default role', async () => {
    const gw = await gateway();
    await gw.request('PUT', '/api/policy/roles/member', {
      as: 'service',
      body: { id: 'member', name: 'Member', patterns: ['forecast.**'] },
    });
    await gw.request('POST', '/api/policy/roles', { as: 'service', body: support });
    const user = await gw.createUser({ roleId: 'support' });
    expect(await resolvedPaths(gw, user.id)).toEqual(['notes.notes.create', 'notes.notes.list']);

    const res = await gw.request('DELETE', '/api/policy/roles/support', { as: 'service' });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ deleted: ['support'] });
    expect(await resolvedPaths(gw, user.id)).toEqual(['forecast.daily.get']);
    expect(
      (await gw.request('DELETE', '/api/policy/roles/support', { as: 'service' })).status,
    ).toBe(404);
  });

  it('refuses the admin role and the default role (409) and a plain user (403)', async () => {
    const gw = await gateway();
    const user = await gw.createUser();
    const admin = await gw.request('DELETE', '/api/policy/roles/admin', { as: 'service' });
    expect(admin.status).toBe(409);
    expect((await json<ErrorBody>(admin)).error.message).toMatch(/admin role cannot be deleted/);
    const member = await gw.request('DELETE', '/api/policy/roles/member', { as: 'service' });
    expect(member.status).toBe(409);
    expect((await json<ErrorBody>(member)).error.message).toMatch(
      /default role \(GATEWAY_DEFAULT_ROLE\)/,
    );
    expect((await gw.request('DELETE', '/api/policy/roles/admin', { as: user })).status).toBe(403);
  });

  it('refuses a role a service account holds (409, naming the accounts)', async () => {
    const gw = await gateway();
    await gw.request('POST', '/api/policy/roles', { as: 'service', body: support });
    const account = await serviceAccount(gw, 'support');
    const res = await gw.request('DELETE', '/api/policy/roles/support', { as: 'service' });
    expect(res.status).toBe(409);
    expect(await json<ErrorBody>(res)).toMatchObject({
      error: { details: { serviceAccounts: [account.id] } },
    });
  });
});

describe('PUT /api/policy/users/:userId/role', () => {
  it('assigns a role (admin only) and the resolve follows', async () => {
    const gw = await gateway();
    const admin = await gw.createUser({ admin: true });
    const user = await gw.createUser();
    await gw.request('POST', '/api/policy/roles', { as: admin, body: support });
    expect(await resolvedPaths(gw, user.id)).toEqual([]);

    const res = await gw.request('PUT', `/api/policy/users/${user.id}/role`, {
      as: admin,
      body: { roleId: 'support' },
    });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ userId: user.id, roleId: 'support' });
    expect(await resolvedPaths(gw, user.id)).toEqual(['notes.notes.create', 'notes.notes.list']);

    await gw.request('PUT', `/api/policy/users/${user.id}/role`, {
      as: admin,
      body: { roleId: 'admin' },
    });
    expect(await resolvedPaths(gw, user.id)).toHaveLength(4);
  });

  it('answers 404 for an unknown user or role, 400 for a bad body, 403/401 for non-admins', async () => {
    const gw = await gateway();
    const user = await gw.createUser();
    const unknownUser = await gw.request('PUT', '/api/policy/users/nobody/role', {
      as: 'service',
      body: { roleId: 'member' },
    });
    expect(unknownUser.status).toBe(404);
    expect((await json<ErrorBody>(unknownUser)).error.message).toBe('No user nobody');
    const unknownRole = await gw.request('PUT', `/api/policy/users/${user.id}/role`, {
      as: 'service',
      body: { roleId: 'ghost' },
    });
    expect(unknownRole.status).toBe(404);
    expect((await json<ErrorBody>(unknownRole)).error.message).toBe('No role "ghost"');
    expect(
      (
        await gw.request('PUT', `/api/policy/users/${user.id}/role`, {
          as: 'service',
          body: { role: 'x' },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await gw.request('PUT', `/api/policy/users/${user.id}/role`, {
          as: user,
          body: { roleId: 'admin' },
        })
      ).status,
    ).toBe(403);
    expect(
      (await gw.request('PUT', `/api/policy/users/${user.id}/role`, { body: { roleId: 'admin' } }))
        .status,
    ).toBe(401);
  });

  it('refuses to take the admin role from the last admin (409)', async () => {
    const gw = await gateway();
    const admin = await gw.createUser({ admin: true });
    const res = await gw.request('PUT', `/api/policy/users/${admin.id}/role`, {
      as: admin,
      body: { roleId: 'member' },
    });
    expect(res.status).toBe(409);
    const second = await gw.createUser({ admin: true });
    const demoted = await gw.request('PUT', `/api/policy/users/${admin.id}/role`, {
      as: second,
      body: { roleId: 'member' },
    });
    expect(demoted.status).toBe(200);
  });
});

describe('GET /api/policy/resolve', () => {
  it("answers the role's tools in the documented shape, with JSON Schema inputs", async () => {
    const gw = await gateway();
    await gw.request('POST', '/api/policy/roles', {
      as: 'service',
      body: { id: 'mixed', name: 'Mixed', patterns: ['notes.*.create', 'forecast.**'] },
    });
    const user = await gw.createUser({ roleId: 'mixed' });
    const res = await gw.request('GET', `/api/policy/resolve?userId=${user.id}`, { as: user });
    expect(res.status).toBe(200);
    const body = await json<{ userId: string; tools: ResolvedTool[] }>(res);
    expect(body).toEqual({
      userId: user.id,
      tools: [
        {
          path: 'forecast.daily.get',
          name: 'Get Daily Forecast',
          description: "Tomorrow's forecast for a city.",
          destructive: false,
          authProvider: 'forecast',
          pluginId: 'forecast',
          inputSchema: {
            $schema: 'https://json-schema.org/draft/2020-12/schema',
            type: 'object',
            properties: { city: { type: 'string' } },
            required: ['city'],
            additionalProperties: false,
          },
        },
        {
          path: 'notes.notes.create',
          name: 'Create Note',
          description: 'Creates a note.',
          destructive: true,
          pluginId: 'notes',
          inputSchema: {
            $schema: 'https://json-schema.org/draft/2020-12/schema',
            type: 'object',
            properties: { text: { type: 'string', minLength: 1, description: 'The note' } },
            required: ['text'],
            additionalProperties: false,
          },
        },
      ],
    });
    expect(Object.keys(body.tools[1] ?? {})).not.toContain('authProvider');
  });

  it('gives the default role to users with none, and nothing when it has no patterns', async () => {
    const gw = await gateway();
    const user = await gw.createUser();
    const res = await gw.request('GET', `/api/policy/resolve?userId=${user.id}`, { as: user });
    expect(await json(res)).toEqual({ userId: user.id, tools: [] });
  });

  it("lets a user resolve only their own tools; admins and the service secret anyone's", async () => {
    const gw = await gateway();
    const alice = await gw.createUser();
    const bob = await gw.createUser();
    const admin = await gw.createUser({ admin: true });
    expect(
      (await gw.request('GET', `/api/policy/resolve?userId=${bob.id}`, { as: alice })).status,
    ).toBe(403);
    expect(
      (await gw.request('GET', `/api/policy/resolve?userId=${bob.id}`, { as: admin })).status,
    ).toBe(200);
    expect(
      (await gw.request('GET', `/api/policy/resolve?userId=${bob.id}`, { as: 'service' })).status,
    ).toBe(200);
    expect((await gw.request('GET', `/api/policy/resolve?userId=${bob.id}`)).status).toBe(401);
  });

  it('refuses a service account (403), a missing userId (400) and answers 404 for no such user', async () => {
    const gw = await gateway();
    const account = await serviceAccount(gw, 'admin');
    const user = await gw.createUser();
    const asAccount = await gw.request('GET', `/api/policy/resolve?userId=${user.id}`, {
      as: { token: account.token },
    });
    expect(asAccount.status).toBe(403);
    const missing = await gw.request('GET', '/api/policy/resolve', { as: 'service' });
    expect(missing.status).toBe(400);
    expect(await json<ErrorBody>(missing)).toMatchObject({ error: { code: 'validation_failed' } });
    const unknown = await gw.request('GET', '/api/policy/resolve?userId=ghost', { as: 'service' });
    expect(unknown.status).toBe(404);
  });

  it('follows role updates, registrations and unregistrations at once', async () => {
    const gw = await gateway();
    await gw.request('POST', '/api/policy/roles', { as: 'service', body: support });
    const user = await gw.createUser({ roleId: 'support' });
    expect(await resolvedPaths(gw, user.id)).toEqual(['notes.notes.create', 'notes.notes.list']);

    await gw.request('PUT', '/api/policy/roles/support', {
      as: 'service',
      body: { ...support, patterns: ['notes.notes.list', 'forecast.*.get'] },
    });
    expect(await resolvedPaths(gw, user.id)).toEqual(['forecast.daily.get', 'notes.notes.list']);

    await gw.request('DELETE', '/api/registry/sources/forecast', { as: 'service' });
    expect(await resolvedPaths(gw, user.id)).toEqual(['notes.notes.list']);

    await gw.request('POST', '/api/registry/sources', {
      as: 'service',
      body: { type: 'plugin', id: 'forecast-again', namespace: 'forecast', pluginId: 'forecast' },
    });
    expect(await resolvedPaths(gw, user.id)).toEqual(['forecast.daily.get', 'notes.notes.list']);
  });
});
