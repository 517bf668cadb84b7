import { expect } from 'vitest';
import { z } from 'zod';
import { startFakeUpstream } from '../upstream/fake-upstream.js';
import { idOf, listsTarget, text } from './fixture-kit.js';
import type { Fixture, MatrixWorld } from './matrix-types.js';

async function createRole(world: MatrixWorld) {
  const id = world
    .unique('role')
    .toLowerCase()
    .replace(/[^a-z0-9_-]/g, '-');
  await world.call('POST', '/api/policy/roles', { id, name: 'Readers', patterns: ['notes.**'] });
  return id;
}

/** Makes an invite as the admin; its id. */
async function createInvite(world: MatrixWorld): Promise<string> {
  const created = z
    .object({ invite: z.object({ id: z.string() }) })
    .parse(await world.call('POST', '/api/invites', {}, world.admin));
  return created.invite.id;
}

async function inviteStatus(world: MatrixWorld, id: string): Promise<string | undefined> {
  const { invites } = z
    .object({ invites: z.array(z.object({ id: z.string(), status: z.string() })) })
    .parse(await world.call('GET', '/api/invites', undefined, world.admin));
  return invites.find((invite) => invite.id === id)?.status;
}

const NOTES_SOURCE = { type: 'plugin', id: 'notes-src', namespace: 'notes', pluginId: 'notes' };

/** Makes sure the notes source is (or is not) registered. */
async function notesSource(world: MatrixWorld, registered: boolean) {
  await world.gw.request('DELETE', `/api/registry/sources/${NOTES_SOURCE.id}`, { as: 'service' });
  if (registered) await world.call('POST', '/api/registry/sources', NOTES_SOURCE);
}

/** Fixtures of the routes that run the gateway: registry, roles, users, service accounts. */
export const adminFixtures: Record<string, Fixture> = {
  'GET /api/overview': {
    scope: 'global',
    success: 200,
    async prepare() {
      return {
        path: '/api/overview',
        check: (body) => expect(body).toMatchObject({ last24h: expect.any(Array) }),
      };
    },
  },
  'POST /api/registry/sources': {
    scope: 'global',
    success: 201,
    async prepare(world) {
      await notesSource(world, false);
      return { path: '/api/registry/sources', body: NOTES_SOURCE };
    },
  },
  'GET /api/registry/sources': {
    scope: 'global',
    success: 200,
    async prepare(world) {
      await notesSource(world, true);
      return { path: '/api/registry/sources', check: listsTarget(NOTES_SOURCE.id) };
    },
  },
  'PATCH /api/registry/sources/:id': {
    scope: 'global',
    success: 200,
    async prepare(world) {
      const fake = await startFakeUpstream([{ name: 'send', behaviour: { kind: 'answer' } }]);
      const id = world
        .unique('up')
        .toLowerCase()
        .replace(/[^a-z0-9]/g, '');
      await world.call('POST', '/api/registry/sources', {
        type: 'mcp',
        id,
        namespace: id,
        url: fake.url,
      });
      const allowed = async () => {
        const { sources } = z
          .object({
            sources: z.array(
              z.object({
                id: z.string(),
                upstream: z.object({ serviceAccountAllowed: z.boolean() }).optional(),
              }),
            ),
          })
          .parse(await world.call('GET', '/api/registry/sources'));
        return sources.find((source) => source.id === id)?.upstream?.serviceAccountAllowed;
      };
      return {
        path: `/api/registry/sources/${id}`,
        body: { serviceAccountAllowed: true },
        intact: async () => (await allowed()) === false,
        check: (body) =>
          expect(body).toMatchObject({ source: { id, upstream: { serviceAccountAllowed: true } } }),
      };
    },
  },
  'DELETE /api/registry/sources/:id': {
    scope: 'global',
    success: 200,
    async prepare(world) {
      await notesSource(world, true);
      return {
        path: `/api/registry/sources/${NOTES_SOURCE.id}`,
        intact: async () =>
          text(await world.call('GET', '/api/registry/sources')).includes(NOTES_SOURCE.id),
      };
    },
  },
  'GET /api/policy/roles': {
    scope: 'global',
    success: 200,
    async prepare() {
      return { path: '/api/policy/roles', check: listsTarget('member', ['owner', 'admin']) };
    },
  },
  'POST /api/policy/roles': {
    scope: 'global',
    success: 201,
    async prepare(world) {
      const id = world
        .unique('role')
        .toLowerCase()
        .replace(/[^a-z0-9_-]/g, '-');
      return { path: '/api/policy/roles', body: { id, name: 'Readers', patterns: ['notes.*.*'] } };
    },
  },
  'PUT /api/policy/roles/:id': {
    scope: 'global',
    success: 200,
    async prepare(world) {
      const id = await createRole(world);
      return {
        path: `/api/policy/roles/${id}`,
        body: { id, name: 'Renamed', patterns: ['**'] },
        intact: async () => (await world.gw.services.policy.getRole(id))?.name === 'Readers',
        check: (body) =>
          expect(body).toEqual({ updated: { id, name: 'Renamed', patterns: ['**'] } }),
      };
    },
  },
  'DELETE /api/policy/roles/:id': {
    scope: 'global',
    success: 200,
    async prepare(world) {
      const id = await createRole(world);
      return {
        path: `/api/policy/roles/${id}`,
        intact: async () => (await world.gw.services.policy.getRole(id)) !== undefined,
      };
    },
  },
  'PUT /api/policy/users/:userId/role': {
    scope: 'global',
    success: 200,
    async prepare(world) {
      const roleId = await createRole(world);
      return {
        path: `/api/policy/users/${world.owner.id}/role`,
        body: { roleId },
        intact: async () => (await world.gw.services.policy.roleOf(world.owner.id)).id !== roleId,
      };
    },
  },
  'POST /api/policy/preview': {
    scope: 'global',
    success: 200,
    async prepare() {
      return { path: '/api/policy/preview', body: { patterns: ['notes.**', 'bad pattern'] } };
    },
  },
  'GET /api/policy/resolve': {
    scope: 'user',
    success: 200,
    async prepare(world) {
      return { path: '/api/policy/resolve', query: { userId: world.owner.id } };
    },
  },
  'GET /api/connectors/availability': {
    scope: 'global',
    success: 200,
    async prepare() {
      return { path: '/api/connectors/availability' };
    },
  },
  'GET /api/users': {
    scope: 'global',
    success: 200,
    async prepare(world) {
      return { path: '/api/users', check: listsTarget(world.owner.id, ['admin', 'service']) };
    },
  },
  'POST /api/service-accounts': {
    scope: 'global',
    success: 201,
    async prepare(world) {
      return {
        path: '/api/service-accounts',
        body: { name: world.unique('bot'), roleId: 'member' },
        check: (body) => expect(body).toMatchObject({ key: expect.stringMatching(/^gw_sa_/) }),
      };
    },
  },
  'GET /api/service-accounts': {
    scope: 'global',
    success: 200,
    async prepare() {
      return { path: '/api/service-accounts' };
    },
  },
  'DELETE /api/service-accounts/:id': {
    scope: 'global',
    success: 200,
    async prepare(world) {
      const body = { name: world.unique('bot'), roleId: 'member' };
      const id = idOf(await world.call('POST', '/api/service-accounts', body, world.admin));
      return {
        path: `/api/service-accounts/${id}`,
        intact: async () => text(await world.call('GET', '/api/service-accounts')).includes(id),
      };
    },
  },
  'GET /api/providers': {
    scope: 'global',
    success: 200,
    async prepare() {
      return {
        path: '/api/providers',
        check: (body) =>
          expect(body).toMatchObject({ providers: [{ id: 'wiki', pluginId: 'wiki' }] }),
      };
    },
  },
  'PUT /api/providers/:id': {
    scope: 'global',
    success: 200,
    async prepare(world) {
      const secret = world.secret();
      return {
        path: '/api/providers/wiki',
        body: { clientId: world.unique('wiki-client'), clientSecret: secret },
        check: (body) => {
          expect(body).toMatchObject({ id: 'wiki', client: 'admin', secretSet: true });
          expect(JSON.stringify(body)).not.toContain(secret);
        },
      };
    },
  },
  'DELETE /api/providers/:id': {
    scope: 'global',
    success: 200,
    async prepare(world) {
      const clientId = world.unique('wiki-client');
      const given = { clientId, clientSecret: world.secret() };
      await world.call('PUT', '/api/providers/wiki', given, world.admin);
      return {
        path: '/api/providers/wiki',
        intact: async () =>
          text(await world.call('GET', '/api/providers', undefined, world.admin)).includes(
            clientId,
          ),
        check: (body) => expect(body).toMatchObject({ id: 'wiki', client: 'none', stored: null }),
      };
    },
  },
  'POST /api/invites': {
    scope: 'global',
    success: 201,
    async prepare(world) {
      return {
        path: '/api/invites',
        body: { email: `${world.unique('invitee')}@example.test`, expiresInDays: 2 },
        check: (body) =>
          expect(body).toMatchObject({
            invite: { status: 'pending' },
            url: expect.stringMatching(/\/sign-up\?invite=gw_inv_[A-Za-z0-9]{40}$/),
          }),
      };
    },
  },
  'GET /api/invites': {
    scope: 'global',
    success: 200,
    async prepare(world) {
      const id = await createInvite(world);
      return { path: '/api/invites', check: listsTarget(id, ['admin']) };
    },
  },
  'DELETE /api/invites/:id': {
    scope: 'global',
    success: 200,
    async prepare(world) {
      const id = await createInvite(world);
      return {
        path: `/api/invites/${id}`,
        intact: async () => (await inviteStatus(world, id)) === 'pending',
      };
    },
  },
};
