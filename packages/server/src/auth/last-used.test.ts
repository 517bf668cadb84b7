import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { databaseTargets } from '#test/db/test-database.js';
import { createEndpoint, listEndpoints } from '../mcp-endpoints/index.js';
import { recordEndpointUse } from '../mcp-endpoints/token-query.js';
import { LAST_USED_EVERY_MS } from './last-used.js';

const T0 = new Date('2026-03-04T05:06:07.000Z');

for (const target of databaseTargets()) {
  describe.skipIf(target.skip)(`last use of a token on ${target.name}`, () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it('is written at most once a minute per token', async () => {
      const { database, cleanup } = await target.open();
      onTestFinished(cleanup);
      const { db } = database;
      await db
        .insertInto('user')
        .values({ id: 'u1', name: 'u1', email: 'u1@example.test', createdAt: T0, updatedAt: T0 })
        .execute();
      const created = await createEndpoint(db, { userId: 'u1', name: 'Claude' });
      if (!created.ok) throw new Error(created.problem);
      const { id } = created.endpoint;
      const lastUsed = async () => (await listEndpoints(db, 'u1'))[0]?.lastUsedAt;
      vi.useFakeTimers({ toFake: ['Date'], now: T0 });

      recordEndpointUse(db, id);
      await vi.waitFor(async () => expect(await lastUsed()).toBe(T0.toISOString()));

      vi.setSystemTime(T0.getTime() + LAST_USED_EVERY_MS - 1);
      recordEndpointUse(db, id);
      // Time for a write, had one been started, to land.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await lastUsed()).toBe(T0.toISOString());

      const later = new Date(T0.getTime() + LAST_USED_EVERY_MS);
      vi.setSystemTime(later);
      recordEndpointUse(db, id);
      await vi.waitFor(async () => expect(await lastUsed()).toBe(later.toISOString()));
    });
  });
}
