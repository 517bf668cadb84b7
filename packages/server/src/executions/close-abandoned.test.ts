import { CompiledQuery } from 'kysely';
import { describe, expect, it, onTestFinished } from 'vitest';
import { databaseTargets } from '#test/db/test-database.js';
import {
  ABANDONED_BATCH,
  ABANDONED_ERROR,
  closeAbandonedExecutions,
  openRecordsBefore,
} from './close-abandoned.js';
import type { ExecutionsTable } from './tables.js';

const NOW = new Date('2026-03-01T12:00:00.000Z');
const WINDOW_MS = 10 * 60_000;
const ago = (ms: number) => new Date(NOW.getTime() - ms).toISOString();

function row(id: string, fields: Partial<ExecutionsTable>): ExecutionsTable {
  return {
    id,
    user_id: 'u1',
    tool_path: 'demo.files.delete',
    started_at: ago(60 * 60_000),
    duration_ms: null,
    outcome: null,
    approval: null,
    approved_by: null,
    arguments: '{}',
    error: null,
    endpoint_id: null,
    client_id: null,
    ...fields,
  };
}

for (const target of databaseTargets()) {
  describe.skipIf(target.skip)(`closeAbandonedExecutions on ${target.name}`, () => {
    it('closes only calls whose latest step is past the window, and never a finished one', async () => {
      const { database, cleanup } = await target.open();
      onTestFinished(cleanup);
      await database.db
        .insertInto('executions')
        .values([
          // Asked a question an hour ago, never answered.
          row('asked', { approval: 'pending', duration_ms: 5 }),
          // Started an hour ago, its instance went away while it ran.
          row('lost', {}),
          // Started an hour ago, but its latest question went out 55 minutes in: still waiting.
          row('alive', { approval: 'pending', duration_ms: 55 * 60_000 }),
          // Started just now.
          row('young', { started_at: ago(1000) }),
          // Finished: never touched.
          row('done', { outcome: 'ok', approval: 'approved', duration_ms: 30 }),
        ])
        .execute();

      expect(await closeAbandonedExecutions(database, { now: NOW, windowMs: WINDOW_MS })).toBe(2);
      const rows = await database.db
        .selectFrom('executions')
        .select(['id', 'outcome', 'approval', 'error'])
        .orderBy('id')
        .execute();
      expect(rows).toEqual([
        { id: 'alive', outcome: null, approval: 'pending', error: null },
        { id: 'asked', outcome: 'timeout', approval: 'expired', error: ABANDONED_ERROR },
        { id: 'done', outcome: 'ok', approval: 'approved', error: null },
        { id: 'lost', outcome: 'timeout', approval: null, error: ABANDONED_ERROR },
        { id: 'young', outcome: null, approval: null, error: null },
      ]);
      // A second sweeper (another instance) finds nothing left to close.
      expect(await closeAbandonedExecutions(database, { now: NOW, windowMs: WINDOW_MS })).toBe(0);
    });

    it('closes records started in the same millisecond in id order, a batch at a time', async () => {
      // With no id tie-break, which of the records left for the next pass was up to
      // the database. Inserted highest id first, so an order by insertion would differ.
      const { database, cleanup } = await target.open();
      onTestFinished(cleanup);
      const ids = Array.from(
        { length: ABANDONED_BATCH + 1 },
        (_, i) => `e${String(i).padStart(4, '0')}`,
      );
      await database.db
        .insertInto('executions')
        .values(ids.toReversed().map((id) => row(id, {})))
        .execute();

      expect(await closeAbandonedExecutions(database, { now: NOW, windowMs: WINDOW_MS })).toBe(
        ABANDONED_BATCH,
      );
      const open = await database.db
        .selectFrom('executions')
        .select('id')
        .where('outcome', 'is', null)
        .execute();
      expect(open).toEqual([{ id: ids.at(-1) }]);
    });

    it('reads past a full batch of calls still alive to the abandoned ones behind it', async () => {
      // 500 calls started an hour ago whose latest step was a minute ago, then one lost call:
      // a pass that read only the oldest batch never reached it.
      const { database, cleanup } = await target.open();
      onTestFinished(cleanup);
      const alive = Array.from({ length: ABANDONED_BATCH }, (_, i) =>
        row(`a${String(i).padStart(4, '0')}`, {
          started_at: ago(60 * 60_000),
          approval: 'pending',
          duration_ms: 59 * 60_000,
        }),
      );
      await database.db
        .insertInto('executions')
        .values([...alive, row('lost', { started_at: ago(30 * 60_000) })])
        .execute();

      expect(await closeAbandonedExecutions(database, { now: NOW, windowMs: WINDOW_MS })).toBe(1);
      const closed = await database.db
        .selectFrom('executions')
        .select('id')
        .where('outcome', '=', 'timeout')
        .execute();
      expect(closed).toEqual([{ id: 'lost' }]);
    });
  });
}

// SQLite's planner has no statistics, so its choice of index is what the partial index is for.
for (const target of databaseTargets().filter((target) => target.dialect === 'sqlite')) {
  describe.skipIf(target.skip)(`the abandoned-call sweep's plan on ${target.name}`, () => {
    it('reads the open records from their partial index, never the index of every record', async () => {
      // Ordered by (started_at, id) with the open records indexed by started_at alone,
      // SQLite walked (started_at, id) of every record, finished ones included.
      const { database, cleanup } = await target.open();
      onTestFinished(cleanup);
      const query = openRecordsBefore(database.db, NOW).compile();
      const plan = await database.db.executeQuery<{ detail: string }>(
        CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]),
      );
      expect(plan.rows.map((row) => row.detail)).toEqual([
        expect.stringContaining('executions_open_started_at_id_idx'),
      ]);
    });
  });
}
