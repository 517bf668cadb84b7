import type { Kysely } from 'kysely';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { databaseTargets } from '#test/db/test-database.js';
import type { DatabaseSchema } from '../db/index.js';
import { createEndpoint, deleteEndpoint, listEndpoints } from '../mcp-endpoints/store.js';
import { issueCliToken, revokeCliToken } from './cli-token-store.js';
import { findRoleRow } from './role-store.js';
import { createServiceAccount } from './service-account-store.js';
import { createTokenRepository } from './token-repository.js';

const T0 = new Date('2026-01-02T03:04:05.000Z');

async function addUser(db: Kysely<DatabaseSchema>, id: string, roleId?: string) {
  await db
    .insertInto('user')
    .values({ id, name: id, email: `${id}@example.test`, createdAt: T0, updatedAt: T0 })
    .execute();
  if (roleId !== undefined) {
    await db
      .insertInto('user_roles')
      .values({ user_id: id, role_id: roleId, assigned_at: T0.toISOString() })
      .execute();
  }
}

for (const target of databaseTargets()) {
  describe.skipIf(target.skip)(`token repository on ${target.name}`, () => {
    async function open() {
      const { database, cleanup } = await target.open();
      onTestFinished(cleanup);
      await addUser(database.db, 'u1');
      await addUser(database.db, 'root', 'admin');
      return { database, tokens: createTokenRepository(database, 'member') };
    }

    it('finds an MCP endpoint token with its owner and role until it is deleted, recording the use', async () => {
      const { database, tokens } = await open();
      const created = await createEndpoint(database.db, { userId: 'u1', name: 'Claude' });
      if (!created.ok) throw new Error(created.problem);
      const { endpoint } = created;

      // The role's row comes with it, as stored (every MCP call resolves its tools from it).
      const member = await findRoleRow(database.db, 'member');
      expect(member).toBeDefined();
      expect(await tokens.find(endpoint.token)).toEqual({
        found: true,
        owner: {
          kind: 'mcp',
          endpointId: endpoint.id,
          userId: 'u1',
          roleId: 'member',
          role: member,
          // What the endpoint serves, as stored (a 2026-07-28 call reads no more than this row).
          scope: { tools: null, mode: 'tools' },
        },
      });
      const narrowed = await createEndpoint(database.db, {
        userId: 'u1',
        name: 'Narrow',
        tools: ['notes.**'],
        mode: 'discovery',
      });
      if (!narrowed.ok) throw new Error(narrowed.problem);
      expect(await tokens.find(narrowed.endpoint.token)).toMatchObject({
        found: true,
        owner: {
          endpointId: narrowed.endpoint.id,
          scope: { tools: '["notes.**"]', mode: 'discovery' },
        },
      });
      await vi.waitFor(async () => {
        const [listed] = await listEndpoints(database.db, 'u1');
        expect(listed?.lastUsedAt).toEqual(expect.stringMatching(/^\d{4}-\d\d-\d\dT/));
      });
      expect(await tokens.find(`${endpoint.token}x`)).toEqual({ found: false, reason: 'unknown' });
      expect(await tokens.find('not-a-gateway-token')).toEqual({ found: false, reason: 'unknown' });

      expect(await deleteEndpoint(database.db, 'u1', endpoint.id)).toEqual([endpoint.id]);
      expect(await tokens.find(endpoint.token)).toEqual({ found: false, reason: 'unknown' });
    });

    it('answers a kept owner at once (findNow), and a token deleted since as unknown at once (issue 37)', async () => {
      const { database, tokens } = await open();
      const created = await createEndpoint(database.db, { userId: 'u1', name: 'Claude' });
      if (!created.ok) throw new Error(created.problem);
      const { endpoint } = created;
      const first = tokens.findNow(endpoint.token);
      expect(await first).toMatchObject({ found: true, owner: { endpointId: endpoint.id } });
      database.refreshChangeMark(false);
      const kept = tokens.findNow(endpoint.token);
      // SQLite can tell the database is unchanged: the owner is kept, answered without a promise.
      // PostgreSQL cannot: every lookup reads.
      expect(kept instanceof Promise).toBe(target.name === 'PostgreSQL');
      expect(await kept).toEqual(await first);
      expect(await deleteEndpoint(database.db, 'u1', endpoint.id)).toEqual([endpoint.id]);
      database.refreshChangeMark(false);
      expect(await tokens.findNow(endpoint.token)).toEqual({ found: false, reason: 'unknown' });
    });

    it('finds a CLI token with its role, and refuses it once revoked or expired', async () => {
      const { database, tokens } = await open();
      const { id, token, expiresAt } = await issueCliToken(database.db, 'root', 'laptop', {
        days: 90,
      });
      expect(await tokens.find(token)).toMatchObject({
        found: true,
        owner: { kind: 'cli', tokenId: id, userId: 'root', roleId: 'admin', expiresAt },
      });

      const past = new Date(Date.now() - 1000).toISOString();
      await database.db
        .updateTable('api_tokens')
        .set({ expires_at: past })
        .where('id', '=', id)
        .execute();
      expect(await tokens.find(token)).toEqual({
        found: false,
        reason: 'expired',
        expiredAt: past,
      });

      await database.db
        .updateTable('api_tokens')
        .set({ expires_at: null })
        .where('id', '=', id)
        .execute();
      expect(await revokeCliToken(database.db, 'root', id)).toBe(true);
      expect(await tokens.find(token)).toEqual({ found: false, reason: 'unknown' });
    });

    it('finds a service account key with the account role, and follows a role change', async () => {
      const { database, tokens } = await open();
      const account = await createServiceAccount(database.db, {
        name: 'ci',
        roleId: 'member',
        createdBy: 'root',
      });
      if (account === undefined) throw new Error('no account');
      expect(await tokens.find(account.key)).toMatchObject({
        found: true,
        owner: { kind: 'service_account', serviceAccountId: account.id, roleId: 'member' },
      });
      await database.db
        .updateTable('service_accounts')
        .set({ role_id: 'admin' })
        .where('id', '=', account.id)
        .execute();
      expect(await tokens.find(account.key)).toMatchObject({ owner: { roleId: 'admin' } });
    });
  });
}
