import { sql } from 'kysely';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createTestDatabase, databaseTargets } from '#test/db/test-database.js';
import type { GatewayDatabase } from '../db/index.js';
import { createLogger } from '../http/logger.js';
import { Redactor } from '../http/redact.js';
import { ExecutionRecorder } from './recorder.js';

async function setup(
  options: { flushIntervalMs?: number; maxBatch?: number } = {},
  open: () => Promise<GatewayDatabase> = async () => {
    const database = await createTestDatabase();
    onTestFinished(() => database.close());
    return database;
  },
) {
  const database = await open();
  const lines: string[] = [];
  const logger = createLogger({ write: (line) => lines.push(line) }, new Redactor());
  const recorder = new ExecutionRecorder({ database, logger, ...options });
  const rows = () =>
    database.db.selectFrom('executions').selectAll().orderBy('started_at').execute();
  return { database, recorder, rows, lines };
}

const base = {
  userId: 'u1',
  toolPath: 'demo.echo.say',
  startedAt: new Date('2026-01-01T00:00:00.000Z'),
  arguments: { text: 'hi', token: 'secret-value' },
};

describe('ExecutionRecorder', () => {
  it('stores a batch on SQLite without a sync, and leaves every other commit synced', async () => {
    const { database, recorder, rows } = await setup();
    const synchronous = async () =>
      (await sql<{ synchronous: number }>`pragma synchronous`.execute(database.db)).rows[0];
    expect(await synchronous()).toEqual({ synchronous: 2 }); // FULL
    recorder.write({ ...base, id: 'e1', outcome: 'ok', durationMs: 1 });
    await recorder.flush();
    expect(await rows()).toHaveLength(1);
    expect(await synchronous()).toEqual({ synchronous: 2 });

    // Also when the batch fails.
    await sql`drop table executions`.execute(database.db);
    recorder.write({ ...base, id: 'e2', outcome: 'ok', durationMs: 1 });
    await recorder.flush();
    expect(await synchronous()).toEqual({ synchronous: 2 });
  });

  it('stores nothing on the call path and everything on flush, arguments redacted', async () => {
    const { recorder, rows } = await setup({ flushIntervalMs: 10_000 });
    recorder.write({ ...base, id: 'e1' });
    recorder.write({ ...base, id: 'e1', outcome: 'ok', durationMs: 12.4 });
    expect(await rows()).toEqual([]);
    await recorder.flush();
    expect(await rows()).toEqual([
      {
        id: 'e1',
        user_id: 'u1',
        tool_path: 'demo.echo.say',
        started_at: '2026-01-01T00:00:00.000Z',
        duration_ms: 12,
        outcome: 'ok',
        approval: null,
        approved_by: null,
        arguments: '{"text":"hi","token":"[redacted]"}',
        error: null,
        endpoint_id: null,
        client_id: null,
      },
    ]);
  });

  it('flushes on its own after the interval, and at once when the batch is full', async () => {
    const timed = await setup({ flushIntervalMs: 20, maxBatch: 3 });
    timed.recorder.write({ ...base, id: 'a' });
    await expect.poll(async () => (await timed.rows()).length, { interval: 5 }).toBe(1);
    // On the same database, an interval no test lasts: only a full batch can be what flushes.
    const batched = await setup({ flushIntervalMs: 3_600_000, maxBatch: 3 }, async () => {
      return timed.database;
    });
    onTestFinished(() => batched.recorder.close());
    for (const id of ['b', 'c', 'd']) batched.recorder.write({ ...base, id });
    await expect.poll(async () => (await batched.rows()).length, { interval: 5 }).toBe(4);
  });

  it('never lets a "still running" write undo a finished record', async () => {
    const { recorder, rows } = await setup();
    recorder.write({
      ...base,
      id: 'e1',
      outcome: 'ok',
      durationMs: 5,
      approval: 'approved',
      approvedBy: 'u1',
    });
    await recorder.flush();
    recorder.write({ ...base, id: 'e1' });
    await recorder.flush();
    expect(await rows()).toMatchObject([
      { id: 'e1', outcome: 'ok', approval: 'approved', approved_by: 'u1' },
    ]);
    recorder.write({ ...base, id: 'e2' });
    await recorder.flush();
    recorder.write({ ...base, id: 'e2', outcome: 'denied', durationMs: 9, approval: 'declined' });
    await recorder.flush();
    expect((await rows()).find((row) => row.id === 'e2')).toMatchObject({
      outcome: 'denied',
      approval: 'declined',
    });
  });

  it('stores none of a batch when part of it fails', async () => {
    const { database, recorder, rows, lines } = await setup({ flushIntervalMs: 10_000 });
    // A trigger fails the 40th row: its chunk comes after a 32-row chunk that went in.
    await sql`create trigger no_e39 before insert on executions when new.id = 'e39' begin select raise(abort, 'refused'); end`.execute(
      database.db,
    );
    for (let i = 0; i < 41; i += 1)
      recorder.write({ ...base, id: `e${i}`, outcome: 'ok', durationMs: 1 });
    await recorder.flush();
    expect(await rows()).toEqual([]);
    expect(lines.join('')).toContain('execution records not stored');
    // The next batch is stored as usual.
    recorder.write({ ...base, id: 'later', outcome: 'ok', durationMs: 1 });
    await recorder.flush();
    expect(await rows()).toHaveLength(1);
  });

  it('logs a batch the database refuses instead of failing the call', async () => {
    const { database, recorder, lines } = await setup();
    recorder.write({ ...base, id: 'e1', outcome: 'ok', durationMs: 1 });
    await database.close();
    await expect(recorder.flush()).resolves.toBeUndefined();
    expect(lines.join('')).toContain('execution records not stored');
  });
});

for (const target of databaseTargets()) {
  describe.skipIf(target.skip)(`ExecutionRecorder on ${target.name}`, () => {
    it('upserts, and keeps finished records finished', async () => {
      const { recorder, rows } = await setup({}, async () => {
        const { database, cleanup } = await target.open();
        onTestFinished(cleanup);
        return database;
      });
      recorder.write({ ...base, id: 'e1' });
      await recorder.flush();
      recorder.write({
        ...base,
        id: 'e1',
        outcome: 'ok',
        durationMs: 3,
        approval: 'approved',
        approvedBy: 'u1',
      });
      await recorder.flush();
      recorder.write({ ...base, id: 'e1' });
      await recorder.flush();
      expect(await rows()).toMatchObject([
        { id: 'e1', outcome: 'ok', duration_ms: 3, approved_by: 'u1' },
      ]);
    });

    it('stores a batch of any size whole (SQLite writes it in chunks, in one transaction)', async () => {
      const { recorder, rows } = await setup({ flushIntervalMs: 10_000 }, async () => {
        const { database, cleanup } = await target.open();
        onTestFinished(cleanup);
        return database;
      });
      const ids = (count: number, from: number) =>
        Array.from({ length: count }, (_, i) => `e${String(from + i).padStart(3, '0')}`);
      // 45 rows: chunks of 32, 8, 2, 2 and 1 on SQLite.
      for (const id of ids(45, 0)) recorder.write({ ...base, id, outcome: 'ok', durationMs: 1 });
      await recorder.flush();
      expect((await rows()).map((row) => row.id).sort()).toEqual(ids(45, 0));
      for (const id of ids(77, 45)) recorder.write({ ...base, id });
      await recorder.flush();
      expect(await rows()).toHaveLength(122);
    });
  });
}
