import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { migrate, openDatabase } from '../db/index.js';
import { type RowValues, rowStore, rowValues } from './record-rows.js';

/** Bytes this process has written with `write(2)`, `pwrite(2)` and the like (Linux). */
function bytesWritten(): number {
  return Number(/^wchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))?.[1]);
}

/** A finished record with its own id, user and tool, so rows land all over the indexes. */
function row(): RowValues {
  return rowValues({
    id: randomUUID(),
    user_id: randomUUID(),
    tool_path: `t${randomUUID()}.echo.say`,
    started_at: new Date(Date.UTC(2026, 0, 1) + Math.floor(Math.random() * 1e10)).toISOString(),
    duration_ms: 3,
    outcome: 'ok',
    arguments: JSON.stringify({ text: randomUUID() }),
    endpoint_id: randomUUID(),
  });
}

describe('rowStore on SQLite', () => {
  // Issue 37 (README.md `sys40`): each upsert's statement journal took every page it changed, and
  // past 64 KiB SQLite wrote it to a temporary file, a page at a time, on every batch.
  it.skipIf(!existsSync('/proc/self/io'))(
    'writes a batch to the WAL and nowhere else: no statement journal on disk',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'gateway-rows-'));
      onTestFinished(() => rm(dir, { recursive: true, force: true }));
      const file = join(dir, 'gateway.db');
      const database = await openDatabase(file, dir);
      onTestFinished(() => database.close());
      await migrate(database);
      const store = rowStore(database);
      await store(Array.from({ length: 3000 }, row));
      const pragma = (text: string) => {
        let value: unknown;
        expect(
          database.runNow?.((connection) => {
            value = connection.pragma(text, { simple: true });
          }),
        ).toBe(true);
        return value;
      };
      pragma('wal_checkpoint(TRUNCATE)');
      expect(statSync(`${file}-wal`).size).toBe(0);

      const before = bytesWritten();
      await store(Array.from({ length: 32 }, row));
      const written = bytesWritten() - before;

      const wal = statSync(`${file}-wal`).size;
      // 32 rows spread over the table and its indexes change well over 64 KiB of pages: what a
      // statement journal kept on disk would have spilled.
      expect(wal).toBeGreaterThan(64 * 1024);
      expect(written).toBeLessThanOrEqual(wal + 4096);
      // The connection's own setting is back for every other query.
      expect(pragma('temp_store')).toBe(0);
      expect(
        await database.db
          .selectFrom('executions')
          .select(({ fn }) => fn.countAll().as('n'))
          .executeTakeFirst(),
      ).toEqual({ n: 3032 });
    },
  );
});
