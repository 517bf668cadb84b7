import { spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
} from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it, onTestFinished } from 'vitest';
import { databaseTargets } from '#test/db/test-database.js';
import { gate } from '#test/mcp/hold-plugin.js';
import { type GatewayDatabase, migrate, openDatabase } from '../db/index.js';
import { createLogger } from '../http/logger.js';
import { Redactor } from '../http/redact.js';
import { ExecutionRecorder } from './recorder.js';

const base = {
  userId: 'u1',
  toolPath: 'demo.echo.say',
  startedAt: new Date('2026-01-01T00:00:00.000Z'),
  arguments: { text: 'hi', token: 'secret-value' },
};

/** A recorder that batches only on flush; `aloneAfterMs` as given (the recorder's default). */
function recorderOn(database: GatewayDatabase, aloneAfterMs?: number) {
  const lines: string[] = [];
  const logger = createLogger({ write: (line) => lines.push(line) }, new Redactor());
  const recorder = new ExecutionRecorder({
    database,
    logger,
    flushIntervalMs: 60_000,
    ...(aloneAfterMs === undefined ? {} : { aloneAfterMs }),
  });
  const rows = () => database.db.selectFrom('executions').selectAll().orderBy('id').execute();
  return { recorder, rows, lines };
}

async function sqliteFile() {
  const dir = await mkdtemp(join(tmpdir(), 'gateway-journal-'));
  const file = join(dir, 'gateway.db');
  const open = async () => {
    const database = await openDatabase(file, dir);
    await migrate(database);
    onTestFinished(() => database.close());
    return database;
  };
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return { dir, file, journal: `${file}-executions`, open };
}

/** The descriptor this process has open on `file` (Linux: `/proc/self/fd`). */
function descriptorOf(file: string): number {
  const target = realpathSync(file);
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === target) return Number(fd);
    } catch {
      // The descriptor readdir itself used, closed by now.
    }
  }
  throw new Error(`no descriptor open on ${file}`);
}

/** A process id no process has: one that has just exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '0']);
  return child.pid ?? 999_999;
}

describe('committed execution records', () => {
  for (const target of databaseTargets().filter((t) => t.name !== 'SQLite (file)')) {
    describe.skipIf(target.skip)(`on ${target.name}: grouped commits`, () => {
      const open = async () => {
        const { database, cleanup } = await target.open();
        onTestFinished(cleanup);
        return database;
      };

      it('resolves once the record is stored, and stores a turn of commits together', async () => {
        const database = await open();
        let batches = 0;
        const store = database.runNow;
        if (store !== undefined) {
          database.runNow = (work) => {
            batches += 1;
            return store(work);
          };
        }
        const { recorder, rows } = recorderOn(database);
        const commits = ['c1', 'c2', 'c3'].map((id) =>
          recorder.commit({ ...base, id, outcome: 'ok', durationMs: 1 }),
        );
        await Promise.all(commits);
        expect((await rows()).map((row) => [row.id, row.outcome])).toEqual([
          ['c1', 'ok'],
          ['c2', 'ok'],
          ['c3', 'ok'],
        ]);
        if (store !== undefined) expect(batches).toBe(1);
        // A "still running" state written earlier goes with the commit, not after it.
        recorder.write({ ...base, id: 'c4' });
        await recorder.commit({ ...base, id: 'c5', outcome: 'ok', durationMs: 1 });
        expect((await rows()).map((row) => row.id)).toContain('c4');
      });

      it('rejects a commit the database refuses, and logs it', async () => {
        const database = await open();
        const { recorder, lines } = recorderOn(database);
        await sql`drop table executions`.execute(database.db);
        await expect(
          recorder.commit({ ...base, id: 'c1', outcome: 'ok', durationMs: 1 }),
        ).rejects.toThrow();
        expect(lines.join('')).toContain('execution records not stored');
      });
    });
  }

  it('on SQLite, waits for an open transaction instead of writing into it', async () => {
    const { database, cleanup } = await databaseTargets()[0]!.open();
    onTestFinished(cleanup);
    const { recorder, rows } = recorderOn(database);
    let committed = false;
    await database.db
      .transaction()
      .execute(async (transaction) => {
        await sql`create table rolled_back (x text)`.execute(transaction);
        const commit = recorder.commit({ ...base, id: 'c1', outcome: 'ok', durationMs: 1 });
        void commit.then(() => {
          committed = true;
        });
        await new Promise((resolve) => setTimeout(resolve, 20));
        expect(committed).toBe(false);
        throw new Error('roll back');
      })
      .catch(() => {});
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Stored after the transaction, and not rolled back with it.
    expect(committed).toBe(true);
    expect((await rows()).map((row) => row.id)).toEqual(['c1']);
    await expect(sql`select * from rolled_back`.execute(database.db)).rejects.toThrow();
  });

  /** The segments in a journal directory (beside them, the owners' lock files). */
  const segmentsIn = async (journal: string) =>
    (await readdir(journal)).filter((name) => name.endsWith('.rows') || name.endsWith('.jsonl'));
  /** The segments that hold records (a recorder's own is emptied, not deleted, by each batch). */
  const heldIn = async (journal: string) => {
    const held: string[] = [];
    for (const name of await segmentsIn(journal)) {
      if ((await readFile(join(journal, name), 'utf8')) !== '') held.push(name);
    }
    return held;
  };

  describe('on a SQLite file: the journal', () => {
    it('makes a record durable before it is stored, and the batch empties its segment for the next', async () => {
      const { journal, open } = await sqliteFile();
      const database = await open();
      const { recorder, rows } = recorderOn(database);
      await recorder.commit({ ...base, id: 'c1', outcome: 'ok', durationMs: 1 });
      const [segment = ''] = await segmentsIn(journal);
      // Not `.jsonl`: an older gateway would read its lines as none and delete it.
      expect(segment).toMatch(/\.rows$/);
      expect(await rows()).toEqual([]);
      await recorder.flush();
      expect(await rows()).toMatchObject([{ id: 'c1', outcome: 'ok' }]);
      // Emptied in place, not made anew for every batch (issue 37).
      expect(await readFile(join(journal, segment), 'utf8')).toBe('');
      await recorder.commit({ ...base, id: 'c2', outcome: 'ok', durationMs: 1 });
      expect(await segmentsIn(journal)).toEqual([segment]);
      // A line is the record's values in the columns' order, not an object keyed by column.
      expect(await readFile(join(journal, segment), 'utf8')).toBe(
        '["c2","u1","demo.echo.say","2026-01-01T00:00:00.000Z",1,"ok",null,null,' +
          '"{\\"text\\":\\"hi\\",\\"token\\":\\"[redacted]\\"}",null,null,null]\n',
      );
      await recorder.flush();
      expect(await readFile(join(journal, segment), 'utf8')).toBe('');
      // Beside it, the owner's lock file, which lives as long as the recorder.
      expect((await readdir(journal)).sort()).toEqual([segment, expect.stringMatching(/\.lock$/)]);
      await recorder.close();
      expect(await readdir(journal)).toEqual([]);
    });

    it("writes a lone commit's line before it returns, and a turn's close commits in one write", async () => {
      const { journal, open } = await sqliteFile();
      const database = await open();
      // Every commit after the first is close to the one before: they share the turn's write.
      const { recorder } = recorderOn(database, 60_000);
      // Read without giving the loop a turn.
      const text = () => {
        const [segment = ''] = readdirSync(journal).filter((name) => name.endsWith('.rows'));
        return readFileSync(join(journal, segment), 'utf8');
      };
      // The first commit is alone: durable when `commit` returns, its answer not held a turn.
      const first = recorder.commit({ ...base, id: 'c1', outcome: 'ok', durationMs: 1 });
      expect(text()).toMatch(/^\["c1",[^\n]*\n$/);
      await first;
      const together = ['c2', 'c3'].map((id) =>
        recorder.commit({ ...base, id, outcome: 'ok', durationMs: 1 }),
      );
      // Both wait for the turn's one write, and are durable once it is done.
      expect(text()).not.toContain('"c2"');
      await Promise.all(together);
      expect(text().split('\n')).toEqual([
        expect.stringMatching(/^\["c1",/),
        expect.stringMatching(/^\["c2",/),
        expect.stringMatching(/^\["c3",/),
        '',
      ]);
      await recorder.close();
    });

    it('writes a lone commit at once however close to the last, and fails it if the write fails', async () => {
      const { journal, open } = await sqliteFile();
      const database = await open();
      const { recorder, lines } = recorderOn(database, 0);
      await recorder.commit({ ...base, id: 'c1', outcome: 'ok', durationMs: 1 });
      void recorder.commit({ ...base, id: 'c2', outcome: 'ok', durationMs: 1 });
      const [segment = ''] = await segmentsIn(journal);
      const text = () => readFileSync(join(journal, segment), 'utf8');
      expect(text()).toContain('"c2"');
      // A real failure of the write: the segment's descriptor is gone (EBADF).
      closeSync(descriptorOf(join(journal, segment)));
      await expect(
        recorder.commit({ ...base, id: 'c5', outcome: 'ok', durationMs: 1 }),
      ).rejects.toThrow();
      expect(lines.join('')).toContain('execution records not stored');
      // Its row stays queued: the next batch stores it with the others.
      await recorder.flush();
      const ids = await database.db.selectFrom('executions').select('id').orderBy('id').execute();
      expect(ids.map((row) => row.id)).toEqual(['c1', 'c2', 'c5']);
    });

    it('after a write of several rows, waits for the turn until a turn writes one again', async () => {
      const { journal, open } = await sqliteFile();
      const database = await open();
      const { recorder } = recorderOn(database, 50);
      const pause = () => new Promise((resolve) => setTimeout(resolve, 60));
      await recorder.commit({ ...base, id: 'c1', outcome: 'ok', durationMs: 1 });
      const [segment = ''] = await segmentsIn(journal);
      const text = () => readFileSync(join(journal, segment), 'utf8');
      // Two close commits: one turn's write of two rows (the busy gateway's).
      await Promise.all(
        ['t1', 't2'].map((id) => recorder.commit({ ...base, id, outcome: 'ok', durationMs: 1 })),
      );
      await pause();
      // Long after, but after a write of two rows: it waits for its turn's write.
      const busy = recorder.commit({ ...base, id: 'c2', outcome: 'ok', durationMs: 1 });
      expect(text()).not.toContain('"c2"');
      await busy;
      expect(text()).toContain('"c2"');
      await pause();
      // That turn wrote one row: the next commit is alone again, in the journal when it returns.
      const alone = recorder.commit({ ...base, id: 'c3', outcome: 'ok', durationMs: 1 });
      expect(text()).toContain('"c3"');
      await alone;
      await recorder.close();
    });

    it('keeps the records appended while a batch is stored until the next batch stores them', async () => {
      const { journal, open } = await sqliteFile();
      const database = await open();
      const { recorder, rows } = recorderOn(database);
      // An open transaction holds the connection: the first batch waits for it. Begun before c1
      // is committed (a lone commit is written at once, without a turn for the transaction).
      const held = gate();
      const begun = gate();
      const transaction = database.db.transaction().execute(() => {
        begun.release();
        return held.released;
      });
      await begun.released;
      await recorder.commit({ ...base, id: 'c1', outcome: 'ok', durationMs: 1 });
      const first = recorder.flush();
      // The batch takes c1 when its turn comes: c2 is committed after.
      await new Promise((resolve) => setImmediate(resolve));
      await recorder.commit({ ...base, id: 'c2', outcome: 'ok', durationMs: 1 });
      held.release();
      await transaction;
      await first;
      expect((await rows()).map((row) => row.id)).toEqual(['c1']);
      // c2 is not stored yet: its segment stays whole, as a crash now would need it.
      const [segment = ''] = await segmentsIn(journal);
      expect(await readFile(join(journal, segment), 'utf8')).toContain('["c2",');
      await recorder.flush();
      expect((await rows()).map((row) => row.id)).toEqual(['c1', 'c2']);
      expect(await segmentsIn(journal)).toEqual([]);
      await recorder.close();
    });

    it("stores a dead process's segments at start, skipping a torn line, without undoing outcomes", async () => {
      const { journal, open } = await sqliteFile();
      const database = await open();
      const { recorder, rows } = recorderOn(database);
      await recorder.commit({ ...base, id: 'done', outcome: 'ok', durationMs: 7 });
      await recorder.flush();
      const row = (id: string, outcome: string | null) =>
        JSON.stringify({
          id,
          user_id: 'u1',
          tool_path: 'demo.echo.say',
          started_at: '2026-01-01T00:00:00.000Z',
          duration_ms: 1,
          outcome,
          approval: null,
          approved_by: null,
          arguments: '{"text":"hi"}',
          error: null,
        });
      const host = encodeURIComponent(hostname()).replaceAll('.', '%2E');
      const segment = join(journal, `${host}.${deadPid()}.gone.1.jsonl`);
      await writeFile(
        segment,
        `${row('lost-1', 'ok')}\n${row('done', null)}\n${row('lost-2', 'error')}\n{"id":"torn`,
      );
      // A segment of a live process on this host is left to it.
      const live = join(journal, `${host}.${process.ppid}.live.1.jsonl`);
      await writeFile(live, `${row('live', 'ok')}\n`);

      const restarted = recorderOn(database);
      expect(await restarted.recorder.recover()).toBe(3);
      expect(
        (await rows()).map((stored) => [stored.id, stored.outcome, stored.duration_ms]),
      ).toEqual([
        ['done', 'ok', 7],
        ['lost-1', 'ok', 1],
        ['lost-2', 'error', 1],
      ]);
      expect(await heldIn(journal)).toEqual([`${host}.${process.ppid}.live.1.jsonl`]);
      expect(restarted.lines.join('')).toContain('execution records recovered from the journal');
      // Run again, it finds nothing more to do.
      expect(await restarted.recorder.recover()).toBe(0);
    });

    it("reads a dead process's lines of either format, and skips any not a record's", async () => {
      const { journal, open } = await sqliteFile();
      const database = await open();
      const { rows } = recorderOn(database);
      const values = (id: string, ...rest: unknown[]) =>
        JSON.stringify([id, 'u1', 'demo.echo.say', '2026-01-01T00:00:00.000Z', ...rest]);
      const host = encodeURIComponent(hostname()).replaceAll('.', '%2E');
      await mkdir(journal);
      const dead = `${host}.${deadPid()}.gone`;
      await writeFile(
        join(journal, `${dead}.1.rows`),
        [
          // This gateway's lines: the values in the columns' order.
          values('new-1', 3, 'ok', 'approved', 'admin', '{"text":"hi"}', null, 'ep1', 'cl1'),
          values('new-2', null, null, null, null, '{}', null, null, null),
          // Not a record: a column short, a column more, a value of the wrong kind, not text.
          values('short', 3, 'ok', null, null, '{}', null, null),
          values('long', 3, 'ok', null, null, '{}', null, null, null, null),
          values('kind', '3', 'ok', null, null, '{}', null, null, null),
          values('args', 3, 'ok', null, null, { text: 'hi' }, null, null, null),
          '[null,"u1"]',
          '42',
          // Torn: the process died writing it.
          values('torn', 3, 'ok', null, null, '{}', null, null, null).slice(0, 30),
        ].join('\n'),
      );
      // An older gateway's segment: an object keyed by column a line.
      await writeFile(
        join(journal, `${dead}.2.jsonl`),
        `${JSON.stringify({
          id: 'old-1',
          user_id: 'u1',
          tool_path: 'demo.echo.say',
          started_at: '2026-01-01T00:00:00.000Z',
          duration_ms: 2,
          outcome: 'error',
          arguments: '{}',
          error: 'failed',
        })}\n`,
      );
      const restarted = recorderOn(database);
      expect(await restarted.recorder.recover()).toBe(3);
      expect(
        (await rows()).map((row) => [
          row.id,
          row.duration_ms,
          row.outcome,
          row.approval,
          row.approved_by,
          row.arguments,
          row.error,
          row.endpoint_id,
          row.client_id,
        ]),
      ).toEqual([
        ['new-1', 3, 'ok', 'approved', 'admin', '{"text":"hi"}', null, 'ep1', 'cl1'],
        ['new-2', null, null, null, null, '{}', null, null, null],
        ['old-1', 2, 'error', null, null, '{}', 'failed', null, null],
      ]);
      expect(await heldIn(journal)).toEqual([]);
    });

    it('keeps the segment of a batch the database refused, for the next start', async () => {
      const { journal, open } = await sqliteFile();
      const database = await open();
      const { recorder } = recorderOn(database);
      await sql`create trigger refuse before insert on executions begin select raise(abort, 'refused'); end`.execute(
        database.db,
      );
      // The answer may go: the record is in the journal.
      await recorder.commit({ ...base, id: 'c1', outcome: 'ok', durationMs: 1 });
      await recorder.flush();
      expect(await segmentsIn(journal)).toHaveLength(1);
    });

    it.skipIf(!existsSync('/proc/self/fd'))(
      'stores a batch whose segment cannot be closed, logs it, and goes on batching',
      async () => {
        const { journal, open } = await sqliteFile();
        const database = await open();
        const lines: string[] = [];
        const logger = createLogger({ write: (line) => lines.push(line) }, new Redactor());
        // A full batch is stored in the background (`void this.flush()`), as a busy gateway's.
        const recorder = new ExecutionRecorder({
          database,
          logger,
          flushIntervalMs: 60_000,
          maxBatch: 2,
        });
        const ids = async () =>
          (await database.db.selectFrom('executions').select('id').orderBy('id').execute()).map(
            (row) => row.id,
          );
        await recorder.commit({ ...base, id: 'c1', outcome: 'ok', durationMs: 1 });
        const [segment] = await segmentsIn(journal);
        // A real failure of the segment's close: its descriptor is gone (EBADF).
        closeSync(descriptorOf(join(journal, segment ?? '')));
        recorder.write({ ...base, id: 'c2' });
        await expect.poll(() => lines.join('')).toContain('execution journal segment not closed');
        await expect.poll(ids).toEqual(['c1', 'c2']);
        // The segment stays for a later start to store again, which changes nothing.
        expect(await segmentsIn(journal)).toEqual([segment]);

        // Later batches are stored as before, from a segment of their own (emptied once stored).
        await recorder.commit({ ...base, id: 'c3', outcome: 'ok', durationMs: 1 });
        await recorder.flush();
        expect(await ids()).toEqual(['c1', 'c2', 'c3']);
        expect(await segmentsIn(journal)).toHaveLength(2);
        expect(await heldIn(journal)).toEqual([segment]);
      },
    );
  });
});
