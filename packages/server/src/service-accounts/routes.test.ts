import { describe, expect, it } from 'vitest';
import { gatewayTargets } from '#test/auth/oauth-test-kit.js';

for (const target of gatewayTargets()) {
  describe.skipIf(target.skip)(`service accounts on ${target.name}`, () => {
    it('lets an admin create one with a role; the gw_sa_ key is shown once and authenticates', async () => {
      const gw = await target.create();
      const admin = await gw.createUser({ admin: true });
      const res = await gw.request('POST', '/api/service-accounts', {
        as: admin,
        body: { name: 'nightly', roleId: 'member' },
      });
      expect(res.status).toBe(201);
      const created = (await res.json()) as { id: string; key: string };
      expect(created).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: 'nightly',
        roleId: 'member',
        key: expect.stringMatching(/^gw_sa_[A-Za-z0-9]{40}$/),
        createdAt: expect.any(String),
      });
      // Stored only as a hash.
      const stored = await gw.services.database.db
        .selectFrom('api_tokens')
        .select(['token_hash', 'masked_token'])
        .where('kind', '=', 'service_account')
        .executeTakeFirstOrThrow();
      expect(stored.token_hash).not.toContain(created.key);
      expect(stored.masked_token).toBe(`gw_sa_••••••••${created.key.slice(-4)}`);

      // The key authenticates as the service account: user routes refuse it with 403, not 401.
      const asAccount = await gw.request('GET', '/api/cli/tokens', { as: { token: created.key } });
      expect(asAccount.status).toBe(403);
    });

    it('lists accounts with the masked key and last use, and never the key', async () => {
      const gw = await target.create();
      const admin = await gw.createUser({ admin: true });
      const { key } = (await (
        await gw.request('POST', '/api/service-accounts', {
          as: admin,
          body: { name: 'ci', roleId: 'member' },
        })
      ).json()) as { key: string };
      await gw.request('GET', '/api/team/connections', { as: { token: key } });
      await new Promise((resolve) => setTimeout(resolve, 20));

      const res = await gw.request('GET', '/api/service-accounts', { as: admin });
      const text = await res.text();
      expect(text).not.toContain(key);
      expect(JSON.parse(text)).toEqual({
        serviceAccounts: [
          {
            id: expect.any(String),
            name: 'ci',
            roleId: 'member',
            createdBy: admin.id,
            createdAt: expect.any(String),
            maskedKey: `gw_sa_••••••••${key.slice(-4)}`,
            lastUsedAt: expect.any(String),
          },
        ],
      });
      expect((await gw.request('GET', '/api/service-accounts', { as: 'service' })).status).toBe(
        200,
      );
    });

    it('deletes an account and its key stops working at once', async () => {
      const gw = await target.create();
      const admin = await gw.createUser({ admin: true });
      const { id, key } = (await (
        await gw.request('POST', '/api/service-accounts', {
          as: admin,
          body: { name: 'ci', roleId: 'member' },
        })
      ).json()) as { id: string; key: string };
      expect(
        (await gw.request('GET', '/api/team/connections', { as: { token: key } })).status,
      ).toBe(200);

      const deleted = await gw.request('DELETE', `/api/service-accounts/${id}`, { as: admin });
      expect(deleted.status).toBe(200);
      expect(await deleted.json()).toEqual({ deleted: [id] });
      expect(
        (await gw.request('GET', '/api/team/connections', { as: { token: key } })).status,
      ).toBe(401);
      expect(
        (await gw.request('DELETE', `/api/service-accounts/${id}`, { as: admin })).status,
      ).toBe(404);
    });

    it('refuses members, unknown roles and unknown fields', async () => {
      const gw = await target.create();
      const admin = await gw.createUser({ admin: true });
      const member = await gw.createUser();
      expect(
        (
          await gw.request('POST', '/api/service-accounts', {
            as: member,
            body: { name: 'x', roleId: 'member' },
          })
        ).status,
      ).toBe(403);
      expect((await gw.request('GET', '/api/service-accounts', { as: member })).status).toBe(403);
      const unknownRole = await gw.request('POST', '/api/service-accounts', {
        as: admin,
        body: { name: 'x', roleId: 'nope' },
      });
      expect(unknownRole.status).toBe(404);
      expect(await unknownRole.json()).toMatchObject({ error: { code: 'not_found' } });
      const extra = await gw.request('POST', '/api/service-accounts', {
        as: admin,
        body: { name: 'x', roleId: 'member', key: 'mine' },
      });
      expect(extra.status).toBe(400);
    });
  });
}
