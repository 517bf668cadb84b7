import { describe, expect, it } from 'vitest';
import { browser } from '#test/auth/oauth-test-kit.js';
import { json } from '#test/registry/test-plugins.js';
import { createTestGateway } from '#test/support/test-gateway.js';
import type { Me } from './schemas.js';

describe('GET /api/me', () => {
  it('names the user of a CLI token, with their email, name and role, and no secret', async () => {
    const gw = await createTestGateway();
    const ada = await gw.createUser({ email: 'ada@example.test', name: 'Ada', roleId: 'admin' });
    const bob = await gw.createUser({ email: 'bob@example.test', name: 'Bob' });

    const res = await gw.request('GET', '/api/me', { as: ada });
    expect(res.status).toBe(200);
    expect(await json<Me>(res)).toEqual({
      kind: 'user',
      userId: ada.id,
      email: 'ada@example.test',
      name: 'Ada',
      roleId: 'admin',
      isAdmin: true,
      via: 'cli_token',
      linkedAccounts: [],
      // Issued by createUser as tokens were before they expired: no expiry.
      token: { id: expect.any(String), expiresAt: null },
    });
    // No role assigned: the default role applies.
    const member = await gw.request('GET', '/api/me', { as: bob });
    const text = await member.text();
    expect(JSON.parse(text)).toEqual({
      kind: 'user',
      userId: bob.id,
      email: 'bob@example.test',
      name: 'Bob',
      roleId: 'member',
      isAdmin: false,
      via: 'cli_token',
      linkedAccounts: [],
      token: { id: expect.any(String), expiresAt: null },
    });
    expect(text).not.toContain(bob.token);
    expect(text).not.toContain(bob.token.slice(-4));
  });

  it('names the user of a browser session', async () => {
    const gw = await createTestGateway();
    const session = browser(gw.fetch, 'http://127.0.0.1:8787');
    const signedUp = await session.browse('/api/auth/sign-up/email', {
      body: { email: 'cy@example.test', password: 'correct horse battery', name: 'Cy' },
    });
    expect(signedUp.status).toBe(200);
    const res = await session.browse('/api/me');
    expect(res.status).toBe(200);
    // The first user to sign up is the admin.
    expect(await res.json()).toMatchObject({
      kind: 'user',
      email: 'cy@example.test',
      roleId: 'admin',
      isAdmin: true,
      via: 'session',
    });
  });

  it('names a service account by its key, without the key', async () => {
    const gw = await createTestGateway();
    const admin = await gw.createUser({ admin: true });
    const created = await gw.request('POST', '/api/service-accounts', {
      as: admin,
      body: { name: 'nightly-report', roleId: 'member' },
    });
    const account = await json<{ id: string; key: string }>(created);
    const res = await gw.request('GET', '/api/me', { as: { token: account.key } });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({
      kind: 'service_account',
      serviceAccountId: account.id,
      name: 'nightly-report',
      roleId: 'member',
    });
    expect(text).not.toContain(account.key.slice('gw_sa_'.length));
  });

  it("lists the user's linked OAuth accounts, without their tokens", async () => {
    const gw = await createTestGateway();
    const ada = await gw.createUser({ email: 'ada@example.test' });
    const bob = await gw.createUser({ email: 'bob@example.test' });
    const link = (id: string, providerId: string, userId: string, at: string) =>
      gw.services.database.db
        .insertInto('account')
        .values({
          id,
          accountId: `${providerId}-${id}`,
          providerId,
          userId,
          accessToken: `access-token-${id}`,
          refreshToken: `refresh-token-${id}`,
          idToken: null,
          accessTokenExpiresAt: null,
          refreshTokenExpiresAt: null,
          scope: 'repo',
          password: null,
          createdAt: at,
          updatedAt: at,
        })
        .execute();
    await link('a2', 'gcp', ada.id, '2026-01-02T00:00:00.000Z');
    // Two of one provider linked in the same millisecond, the greater id first: in id order.
    await link('a9', 'github', ada.id, '2026-01-01T00:00:00.000Z');
    await link('a1', 'github', ada.id, '2026-01-01T00:00:00.000Z');
    await link('b1', 'github', bob.id, '2026-01-03T00:00:00.000Z');

    const res = await gw.request('GET', '/api/me', { as: ada });
    const text = await res.text();
    expect((JSON.parse(text) as { linkedAccounts: unknown }).linkedAccounts).toEqual([
      {
        id: 'a2',
        providerId: 'gcp',
        createdAt: '2026-01-02T00:00:00.000Z',
        updatedAt: '2026-01-02T00:00:00.000Z',
        needsReconnect: false,
      },
      {
        id: 'a1',
        providerId: 'github',
        createdAt: '2026-01-01T00:00:00.000Z',
        updatedAt: '2026-01-01T00:00:00.000Z',
        needsReconnect: false,
      },
      {
        id: 'a9',
        providerId: 'github',
        createdAt: '2026-01-01T00:00:00.000Z',
        updatedAt: '2026-01-01T00:00:00.000Z',
        needsReconnect: false,
      },
    ]);
    expect(text).not.toContain('token-a');
  });

  it('answers the service secret with its kind alone', async () => {
    const gw = await createTestGateway();
    const res = await gw.request('GET', '/api/me', { as: 'service' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ kind: 'service' });
  });

  it('answers 401 in the error shape without credentials or with a bad token', async () => {
    const gw = await createTestGateway();
    const anonymous = await gw.request('GET', '/api/me');
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({
      error: { code: 'unauthorized', message: expect.any(String) },
    });
    const revoked = await gw.request('GET', '/api/me', {
      as: { token: `gw_cli_${'x1'.repeat(20)}` },
    });
    expect(revoked.status).toBe(401);
    expect(await revoked.json()).toMatchObject({ error: { code: 'unauthorized' } });
  });

  it('answers 401 once the user is deleted (their tokens go with them)', async () => {
    const gw = await createTestGateway();
    const ada = await gw.createUser();
    await gw.services.database.db.deleteFrom('user').where('id', '=', ada.id).execute();
    const res = await gw.request('GET', '/api/me', { as: ada });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { code: 'unauthorized' } });
  });

  it('rejects query parameters (400)', async () => {
    const gw = await createTestGateway();
    const ada = await gw.createUser();
    const res = await gw.request('GET', '/api/me?userId=x', { as: ada });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: 'validation_failed' } });
  });
});
