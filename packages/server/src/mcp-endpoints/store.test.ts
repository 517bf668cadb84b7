import type { Kysely } from 'kysely';
import { describe, expect, it, onTestFinished } from 'vitest';
import { databaseTargets } from '#test/db/test-database.js';
import type { DatabaseSchema } from '../db/index.js';
import { hashToken, maskToken } from '../secrets/index.js';
import { createEndpoint, deleteEndpoint, listEndpoints, type NewEndpoint } from './store.js';

const T0 = new Date('2026-01-02T03:04:05.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

async function addUser(db: Kysely<DatabaseSchema>, id: string) {
  await db
    .insertInto('user')
    .values({ id, name: id, email: `${id}@example.test`, createdAt: T0, updatedAt: T0 })
    .execute();
}

async function create(db: Kysely<DatabaseSchema>, overrides: Partial<NewEndpoint> = {}) {
  const result = await createEndpoint(db, { userId: 'u1', name: 'Claude', ...overrides });
  if (!result.ok) throw new Error(`expected an endpoint, got ${result.problem}`);
  return result.endpoint;
}

for (const target of databaseTargets()) {
  describe.skipIf(target.skip)(`MCP endpoint store on ${target.name}`, () => {
    async function open() {
      const { database, cleanup } = await target.open();
      onTestFinished(cleanup);
      await addUser(database.db, 'u1');
      await addUser(database.db, 'u2');
      return database.db;
    }

    it('creates an endpoint with a fresh token and stores only its hash and masked form', async () => {
      const db = await open();

      const result = await createEndpoint(db, {
        userId: 'u1',
        name: 'Claude',
        description: 'Desktop',
        now: T0,
      });

      expect(result).toEqual({
        ok: true,
        endpoint: {
          id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          name: 'Claude',
          token: expect.stringMatching(/^gw_mcp_[0-9A-Za-z]{40}$/),
          createdAt: T0.toISOString(),
          tools: null,
          mode: 'tools',
        },
      });
      if (!result.ok) return;
      const rows = await db.selectFrom('mcp_endpoints').selectAll().execute();
      expect(rows).toEqual([
        {
          id: result.endpoint.id,
          user_id: 'u1',
          name: 'Claude',
          description: 'Desktop',
          token_hash: hashToken(result.endpoint.token),
          masked_token: maskToken(result.endpoint.token),
          created_at: T0.toISOString(),
          last_used_at: null,
          kind: 'token',
          oauth_client_id: null,
          tools: null,
          mode: 'tools',
        },
      ]);
      expect(JSON.stringify(rows)).not.toContain(result.endpoint.token.slice('gw_mcp_'.length));
    });

    it('refuses an unknown user and a duplicate name for the same user only', async () => {
      const db = await open();
      await create(db);

      expect(await createEndpoint(db, { userId: 'nobody', name: 'x' })).toEqual({
        ok: false,
        problem: 'user_not_found',
      });
      expect(await createEndpoint(db, { userId: 'u1', name: 'Claude' })).toEqual({
        ok: false,
        problem: 'duplicate',
      });
      await create(db, { userId: 'u2' });
    });

    it('lets exactly one of several concurrent duplicates through', async () => {
      const db = await open();

      const results = await Promise.all(
        Array.from({ length: 6 }, () => createEndpoint(db, { userId: 'u1', name: 'Same' })),
      );

      expect(results.filter((result) => result.ok)).toHaveLength(1);
    });

    it("lists the user's endpoints oldest first with masked tokens", async () => {
      const db = await open();
      const second = await create(db, { name: 'second', now: at(1) });
      const first = await create(db, { name: 'first', description: 'd', now: at(0) });
      await create(db, { userId: 'u2', now: at(0) });

      expect(await listEndpoints(db, 'u1')).toEqual([
        {
          id: first.id,
          name: 'first',
          description: 'd',
          maskedToken: maskToken(first.token),
          createdAt: at(0).toISOString(),
          lastUsedAt: null,
          kind: 'token',
          clientId: null,
          tools: null,
          mode: 'tools',
        },
        {
          id: second.id,
          name: 'second',
          description: null,
          maskedToken: maskToken(second.token),
          createdAt: at(1).toISOString(),
          lastUsedAt: null,
          kind: 'token',
          clientId: null,
          tools: null,
          mode: 'tools',
        },
      ]);
    });

    it("deletes nothing of another user's, nor an unknown id", async () => {
      const db = await open();
      const theirs = await create(db, { userId: 'u2' });

      expect(await deleteEndpoint(db, 'u1', theirs.id)).toEqual([]);
      expect(await deleteEndpoint(db, 'u1', crypto.randomUUID())).toEqual([]);
      const left = await db.selectFrom('mcp_endpoints').select(['id', 'user_id']).execute();
      expect(left).toEqual([{ id: theirs.id, user_id: 'u2' }]);
    });
  });
}
