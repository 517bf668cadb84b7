import { describe, expect, it, onTestFinished } from 'vitest';
import { createPostgresTestDatabase, postgresTestUrl } from '#test/db/test-database.js';
import { reserveSession } from './session-rows.js';
import { sessionDb } from './tables.js';

// The shared sessions live in PostgreSQL only (an advisory lock counts an owner's sessions):
// SQLite keeps its sessions in the instance's memory.
const pgUrl = postgresTestUrl();

describe.skipIf(!pgUrl)('session rows on PostgreSQL', () => {
  it('evicts the lowest id of the sessions last used in the same millisecond', async () => {
    // Issue 38: with no id tie-break, which of them went was up to the database. Opened highest
    // id first, so an order by insertion would differ.
    const scoped = await createPostgresTestDatabase(pgUrl as string);
    onTestFinished(scoped.drop);
    const db = sessionDb(scoped.database);
    const now = new Date('2026-03-01T12:00:00.000Z');
    const open = (id: string) =>
      reserveSession(db, { id, owner: 'user:u1', initParams: {}, now }, 3, () => false);
    for (const id of ['s3', 's2', 's1']) expect(await open(id)).toEqual({ ok: true, evicted: [] });

    expect(await open('s4')).toEqual({ ok: true, evicted: ['s1'] });
  });
});
