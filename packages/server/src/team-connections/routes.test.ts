import { describe, expect, it } from 'vitest';
import { gatewayTargets } from '#test/auth/oauth-test-kit.js';

const body = { toolId: 'weather', instanceName: 'Company key', secret: 'team-secret-abcd' };

for (const target of gatewayTargets()) {
  describe.skipIf(target.skip)(`team connections on ${target.name}`, () => {
    it('lets an admin connect a tool for everyone; answers the masked create shape', async () => {
      const gw = await target.create();
      const admin = await gw.createUser({ admin: true });
      const res = await gw.request('POST', '/api/team/connections', { as: admin, body });
      expect(res.status).toBe(201);
      const created = (await res.json()) as Record<string, unknown>;
      expect(created).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        toolId: 'weather',
        instanceName: 'Company key',
        maskedSecret: '••••••••abcd',
      });
      const row = await gw.services.database.db
        .selectFrom('connections')
        .selectAll()
        .executeTakeFirstOrThrow();
      expect(row.owner).toBe('team');
      expect(row.encrypted_secret).not.toContain('team-secret');
    });

    it('serves users without a connection of their own through token vending', async () => {
      const gw = await target.create();
      const admin = await gw.createUser({ admin: true });
      const member = await gw.createUser();
      await gw.request('POST', '/api/team/connections', { as: admin, body });
      expect(await gw.services.tokens.vend(member.id, 'weather')).toEqual({
        token: 'team-secret-abcd',
        source: 'team_connection',
      });
    });

    it('shows every signed-in user which tools are connected for the team, never the secret', async () => {
      const gw = await target.create();
      const admin = await gw.createUser({ admin: true });
      const member = await gw.createUser();
      await gw.request('POST', '/api/team/connections', { as: admin, body });

      const asMember = await gw.request('GET', '/api/team/connections', { as: member });
      expect(asMember.status).toBe(200);
      const text = await asMember.text();
      expect(text).not.toContain('team-secret');
      expect(text).not.toContain('abcd');
      expect(JSON.parse(text)).toEqual({
        connections: [
          {
            id: expect.any(String),
            toolId: 'weather',
            instanceName: 'Company key',
            description: null,
            workspaceId: null,
            createdAt: expect.any(String),
            updatedAt: expect.any(String),
          },
        ],
      });

      const asAdmin = (await (
        await gw.request('GET', '/api/team/connections', { as: admin })
      ).json()) as {
        connections: { maskedSecret?: string; createdBy?: string }[];
      };
      expect(asAdmin.connections[0]).toMatchObject({
        maskedSecret: '••••••••abcd',
        createdBy: admin.id,
      });
      expect((await gw.request('GET', '/api/team/connections')).status).toBe(401);
    });

    it('refuses non-admins and the service secret on create, and a duplicate name with 409', async () => {
      const gw = await target.create();
      const admin = await gw.createUser({ admin: true });
      const member = await gw.createUser();
      expect((await gw.request('POST', '/api/team/connections', { as: member, body })).status).toBe(
        403,
      );
      expect(
        (await gw.request('POST', '/api/team/connections', { as: 'service', body })).status,
      ).toBe(403);
      expect((await gw.request('POST', '/api/team/connections', { body })).status).toBe(401);
      expect((await gw.request('POST', '/api/team/connections', { as: admin, body })).status).toBe(
        201,
      );
      const duplicate = await gw.request('POST', '/api/team/connections', { as: admin, body });
      expect(duplicate.status).toBe(409);
      expect(await duplicate.json()).toMatchObject({ error: { code: 'conflict' } });
      const unknownField = await gw.request('POST', '/api/team/connections', {
        as: admin,
        body: { ...body, userId: 'x' },
      });
      expect(unknownField.status).toBe(400);
    });

    it('lets an admin delete a team connection; members may not; unknown ids are 404', async () => {
      const gw = await target.create();
      const admin = await gw.createUser({ admin: true });
      const member = await gw.createUser();
      const { id } = (await (
        await gw.request('POST', '/api/team/connections', { as: admin, body })
      ).json()) as { id: string };

      expect(
        (await gw.request('DELETE', `/api/team/connections/${id}`, { as: member })).status,
      ).toBe(403);
      const deleted = await gw.request('DELETE', `/api/team/connections/${id}`, { as: admin });
      expect(deleted.status).toBe(200);
      expect(await deleted.json()).toEqual({ deleted: [id] });
      expect(
        (await gw.request('DELETE', `/api/team/connections/${id}`, { as: admin })).status,
      ).toBe(404);
      const member2 = await gw.services.tokens
        .vend(member.id, 'weather')
        .catch((e: Error) => e.name);
      expect(member2).toBe('AuthRequiredError');
    });

    it("cannot delete a user's own connection through the team route", async () => {
      const gw = await target.create();
      const admin = await gw.createUser({ admin: true });
      const member = await gw.createUser();
      const own = await gw.request('POST', '/api/connections', {
        as: member,
        body: {
          userId: member.id,
          toolId: 'weather',
          instanceName: 'Mine',
          secret: 'my-own-key-1234',
        },
      });
      const { id } = (await own.json()) as { id: string };
      expect(
        (await gw.request('DELETE', `/api/team/connections/${id}`, { as: admin })).status,
      ).toBe(404);
    });
  });
}
