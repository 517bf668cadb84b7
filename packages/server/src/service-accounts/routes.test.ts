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
      // The last use is written after the answer: wait for it instead of guessing how long.
      const listed = async () => {
        const res = await gw.request('GET', '/api/service-accounts', { as: admin });
        return res.text();
      };
      await expect
        .poll(async () => JSON.parse(await listed()).serviceAccounts[0].lastUsedAt, {
          timeout: 10_000,
        })
        .toEqual(expect.any(String));
      const text = await listed();
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

    // The account's latest key was the last of the keys ordered by creation time
    // alone, so keys made in one millisecond came in whatever order the database chose.
    it('shows the same key of several made in one millisecond: the greatest id, as lists order ties', async () => {
      const gw = await target.create({ host: '127.0.0.1', port: 0 });
      const { port } = await gw.start();
      const admin = await gw.createUser({ admin: true });
      const created = await gw.request('POST', '/api/service-accounts', {
        as: admin,
        body: { name: 'ci', roleId: 'member' },
      });
      const { id, createdAt } = (await created.json()) as { id: string; createdAt: string };
      // Two more live keys of the same millisecond, the greater id stored first.
      for (const [keyId, last] of [
        ['ffffffff-ffff-4fff-bfff-ffffffffffff', 'ffff'],
        ['00000000-0000-4000-8000-000000000000', '0000'],
      ] as const) {
        await gw.services.database.db
          .insertInto('api_tokens')
          .values({
            id: keyId,
            kind: 'service_account',
            user_id: admin.id,
            service_account_id: id,
            name: 'ci',
            token_hash: `hash-${last}`,
            masked_token: `gw_sa_••••••••${last}`,
            created_at: createdAt,
            last_used_at: null,
            expires_at: null,
            revoked_at: null,
          })
          .execute();
      }
      const res = await fetch(`http://127.0.0.1:${port}/api/service-accounts`, {
        headers: admin.headers,
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({
        serviceAccounts: [{ id, maskedKey: 'gw_sa_••••••••ffff' }],
      });
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
