import { randomBytes } from 'node:crypto';
import {
  closeSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { COLUMNS, type Row, type RowValues, rowValues } from './record-rows.js';

/** The suffix of a journal owner's lock file: held while the process lives. */
const LOCK = '.lock';

/**
 * The suffix of a segment of record values (arrays). Not `.jsonl`, which an older gateway reads
 * as objects only: it would skip this build's lines and delete the segment, losing its records
 * (a rollback, or an older gateway beside this one on the file). It leaves these alone.
 */
const SEGMENT = '.rows';

/** The suffix of an older gateway's segments, of records keyed by column (read as well). */
const OLDER_SEGMENT = '.jsonl';

/** A segment another live process may still be writing is left alone until it is this old. */
const ABANDONED_AFTER_MS = 60_000;

/** The segment name prefixes of this process's journals (several gateways may share a file). */
const ours = new Set<string>();

/**
 * An append-only file of execution records, beside a SQLite database, that makes a record
 * durable before the call's answer is sent without a SQLite transaction per call.
 *
 * Records are appended as JSON lines, each the record's {@link RowValues} (an array, its values in
 * the columns' order: no key per value to write), in `.rows` segments; an older gateway's `.jsonl`
 * segments, of objects keyed by column, are read back as well. Those committed in one turn of
 * the event loop go in one `write(2)` (a lone commit at once, recorder.ts; once it returns, they
 * survive a crash of the process, as a SQLite commit without fsync does) and are stored in the
 * database with the next batch. A batch takes every record
 * appended so far ({@link take}); once it is committed ({@link stored}) the segment is emptied in
 * place when nothing was appended meanwhile (the common case, and one `ftruncate(2)` where a new
 * segment per batch cost a `mkdir`, an `open`, a `close` and an `unlink`), else ended, and deleted
 * by the next batch, which holds what was appended after. So a segment never holds a record whose
 * batch failed once a later batch succeeds, and what a crash leaves is what it left before: the
 * records of the batches not yet committed. A batch that fails ends its segment, which stays
 * ({@link failed}). Segments left behind by a process that died are stored by the next gateway to
 * start on the database ({@link recover}); storing one twice changes nothing (the upsert never
 * undoes a stored outcome).
 *
 * Segment names carry the host, the process id and a start token. Before its first segment a
 * journal takes an exclusive lock on a lock file of the same prefix (an SQLite database held in
 * an exclusive transaction: SQLite's own file locks) and holds it while the process lives. The
 * kernel drops the lock when the process dies, before it is reaped: a killed process, or one left
 * a zombie by its parent, is told from a live one by whether its lock can be taken, never by
 * `kill(pid, 0)` (which a zombie and a reused process id both pass). Segments without a lock
 * file (an older build's) are judged as before: same host and no such process, or a minute old.
 */
export class ExecutionJournal {
  readonly #dir: string;
  readonly #prefix: string;
  #sequence = 0;
  #fd: number | undefined;
  #segment: string | undefined;
  /** Bytes written to the current segment since it was opened or emptied. */
  #bytes = 0;
  /** Ended segments whose records the next batch holds (or held): it deletes them once stored. */
  #ended: string[] = [];
  #lock: { db: Database.Database; path: string } | undefined;

  constructor(dir: string) {
    this.#dir = dir;
    // The start token tells this process from an earlier one with the same id (a container's 1).
    this.#prefix = `${hostTag()}.${process.pid}.${Date.now().toString(36)}${randomBytes(4).toString('hex')}`;
    ours.add(this.#prefix);
  }

  /** Appends `rows` in one write; once this returns they survive a crash of this process. */
  append(rows: readonly RowValues[]): void {
    if (rows.length === 0) return;
    if (this.#fd === undefined) {
      mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
      if (this.#lock === undefined) {
        const path = join(this.#dir, `${this.#prefix}${LOCK}`);
        this.#lock = { db: holdLock(path), path };
      }
      this.#segment = join(this.#dir, `${this.#prefix}.${++this.#sequence}${SEGMENT}`);
      // Readable by its owner only: the records' arguments are redacted, but private.
      this.#fd = openSync(this.#segment, 'a', 0o600);
      this.#bytes = 0;
    }
    let lines = '';
    for (const row of rows) lines += `${JSON.stringify(row)}\n`;
    try {
      this.#bytes += writeSync(this.#fd, lines);
    } catch (error) {
      // Its rows are queued all the same: the next batch stores them, then deletes the segment.
      const segment = this.#segment;
      this.#end(true);
      if (segment !== undefined) this.#ended.push(segment);
      throw error;
    }
  }

  /** What a batch holds of the journal: every record appended so far. */
  take(): JournalTake {
    const ended = this.#ended;
    this.#ended = [];
    return { segment: this.#segment, end: this.#bytes, ended };
  }

  /**
   * The batch that took `taken` is committed: the segment is emptied when nothing was appended
   * since, else ended (the next batch deletes it); the segments it ended before are deleted.
   *
   * @throws whatever emptying, closing or deleting a file throws; its segment then stays, for a
   *   later start to store again (which changes nothing), and later appends go to a new one.
   */
  stored(taken: JournalTake): void {
    for (const segment of taken.ended) this.remove(segment);
    if (taken.segment === undefined || taken.segment !== this.#segment) return;
    if (this.#bytes !== taken.end) {
      this.#end();
      this.#ended.push(taken.segment);
      return;
    }
    try {
      if (this.#fd !== undefined) ftruncateSync(this.#fd, 0);
      this.#bytes = 0;
    } catch (error) {
      this.#end(true);
      throw error;
    }
  }

  /**
   * The batch that took `taken` was not committed: its records stay in the journal, for the next
   * start to store. The segment is ended, so no later batch empties or deletes it.
   *
   * @throws whatever closing its file throws; later appends still go to a new segment.
   */
  failed(taken: JournalTake): void {
    if (taken.segment === undefined) return;
    // Ended meanwhile (a failed append), it is no longer the next batch's to delete.
    this.#ended = this.#ended.filter((segment) => segment !== taken.segment);
    if (taken.segment === this.#segment) this.#end();
  }

  /** Ends the current segment: later appends go to a new one. `quietly`: a failed close is let go. */
  #end(quietly = false): void {
    const fd = this.#fd;
    this.#fd = undefined;
    this.#segment = undefined;
    this.#bytes = 0;
    if (fd === undefined) return;
    try {
      closeSync(fd);
    } catch (error) {
      if (!quietly) throw error;
    }
  }

  /**
   * Lets go of the owner lock, once every segment is stored or left for a recovery (the gateway
   * is stopping): the current segment is deleted when it is empty, else left. A later append
   * takes the lock again.
   */
  close(): void {
    const segment = this.#segment;
    const empty = this.#bytes === 0;
    this.#end(true);
    if (segment !== undefined && empty) removeFile(segment);
    const lock = this.#lock;
    this.#lock = undefined;
    if (lock === undefined) return;
    removeFile(lock.path);
    lock.db.close();
  }

  /** Deletes a segment whose records are committed. */
  remove(segment: string): void {
    try {
      unlinkSync(segment);
    } catch (error) {
      // Another gateway recovering it first is fine.
      if (!(error instanceof Error && 'code' in error && error.code === 'ENOENT')) throw error;
    }
  }

  /**
   * Stores the records of every segment no live process is writing, then deletes the segment.
   * A torn last line (the process died mid-write, before the call could be answered) is skipped.
   * Answers how many records were stored. Runs at start and then every few seconds, so a killed
   * gateway's records are stored by any other one on the database without waiting for a restart.
   */
  async recover(store: (rows: RowValues[]) => Promise<void>): Promise<number> {
    let names: string[];
    try {
      names = readdirSync(this.#dir);
    } catch (error) {
      if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return 0;
      throw error;
    }
    const owners = new Map<string, { segments: string[]; locked: boolean }>();
    for (const name of names) {
      const isLock = name.endsWith(LOCK);
      if (!isLock && !name.endsWith(SEGMENT) && !name.endsWith(OLDER_SEGMENT)) continue;
      const prefix = isLock ? name.slice(0, -LOCK.length) : name.split('.').slice(0, 3).join('.');
      if (ours.has(prefix)) continue;
      const owner = owners.get(prefix) ?? { segments: [], locked: false };
      if (isLock) owner.locked = true;
      else owner.segments.push(name);
      owners.set(prefix, owner);
    }
    let stored = 0;
    for (const [prefix, owner] of owners) {
      const lockPath = join(this.#dir, `${prefix}${LOCK}`);
      const claim = owner.locked ? claimLock(lockPath) : undefined;
      if (claim === 'held') continue;
      try {
        for (const name of owner.segments) {
          const path = join(this.#dir, name);
          if (claim === undefined && !this.#abandoned(name, path)) continue;
          const rows = readRows(path);
          for (let at = 0; at < rows.length; at += 500) await store(rows.slice(at, at + 500));
          stored += rows.length;
          this.remove(path);
        }
      } finally {
        if (claim !== undefined) {
          // Every segment is stored: the dead owner's lock file goes too.
          removeFile(lockPath);
          claim.close();
        }
      }
    }
    return stored;
  }

  /** For a segment without a lock file (an older build's): whether its process is gone. */
  #abandoned(name: string, path: string): boolean {
    const [host, pid] = name.split('.');
    if (host === hostTag()) {
      const id = Number(pid);
      // This process id, not one of this process's journals: a process before a restart.
      if (id === process.pid || !processAlive(id)) return true;
    }
    try {
      return Date.now() - statSync(path).mtimeMs > ABANDONED_AFTER_MS;
    } catch {
      return false;
    }
  }
}

/** What a batch holds of the journal ({@link ExecutionJournal.take}). */
export interface JournalTake {
  /** The segment being written, if any, and how many of its bytes the batch holds. */
  segment: string | undefined;
  end: number;
  /** Segments ended since the last batch: their records are all in this one or stored before. */
  ended: string[];
}

/**
 * Takes the lock a journal's owner holds while it lives: an SQLite database in an exclusive
 * transaction. Made under a temporary name and renamed once held, so no one ever finds the lock
 * file unheld while its owner lives.
 */
function holdLock(path: string): Database.Database {
  const pending = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  const lock = new Database(pending);
  try {
    // Nothing is ever written: no rollback journal file beside it.
    lock.pragma('journal_mode = MEMORY');
    lock.exec('BEGIN EXCLUSIVE');
    renameSync(pending, path);
  } catch (error) {
    lock.close();
    removeFile(pending);
    throw error;
  }
  return lock;
}

/**
 * Tries to take a journal owner's lock: `held` while its process lives, else the lock, now this
 * process's, for as long as the dead owner's segments are stored. Undefined when the lock file
 * is gone (its owner stopped, or another gateway recovered it) or is no lock (then its segments
 * are judged by the rule for lock-less ones).
 */
function claimLock(path: string): Database.Database | 'held' | undefined {
  let lock: Database.Database;
  try {
    lock = new Database(path, { fileMustExist: true, timeout: 0 });
  } catch {
    return undefined;
  }
  try {
    lock.pragma('journal_mode = MEMORY');
    lock.exec('BEGIN EXCLUSIVE');
    return lock;
  } catch (error) {
    lock.close();
    const code = error instanceof Error && 'code' in error ? error.code : undefined;
    return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' ? 'held' : undefined;
  }
}

/** Deletes a file that may already be gone. */
function removeFile(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if (!(error instanceof Error && 'code' in error && error.code === 'ENOENT')) throw error;
  }
}

/** The host's name, safe in a file name and free of the dots that separate a segment's parts. */
function hostTag(): string {
  return encodeURIComponent(hostname()).replaceAll('.', '%2E');
}

function processAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, as another user's.
    return error instanceof Error && 'code' in error && error.code === 'EPERM';
  }
}

function readRows(path: string): RowValues[] {
  const rows: RowValues[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line === '') continue;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      // A torn line: the process died writing it, before the call was answered.
      continue;
    }
    if (Array.isArray(row)) {
      if (isRowValues(row)) rows.push(row);
    } else if (isRow(row)) {
      rows.push(rowValues(row));
    }
  }
  return rows;
}

/** What each column of a journal line holds: text, text or null, a number or null. */
const KINDS: readonly ('text' | 'text?' | 'number?')[] = COLUMNS.map((column) =>
  column === 'duration_ms'
    ? 'number?'
    : column === 'id' ||
        column === 'user_id' ||
        column === 'tool_path' ||
        column === 'started_at' ||
        column === 'arguments'
      ? 'text'
      : 'text?',
);

/** Whether a line is a record's values, each of its column's kind. */
function isRowValues(values: unknown[]): values is [...RowValues] {
  if (values.length !== KINDS.length) return false;
  return KINDS.every((kind, index) => {
    const value = values[index];
    if (kind === 'text') return typeof value === 'string';
    return value === null || typeof value === (kind === 'text?' ? 'string' : 'number');
  });
}

/** Whether a line is an older gateway's: an object keyed by column. */
function isRow(value: unknown): value is Row {
  if (typeof value !== 'object' || value === null) return false;
  const row = value as Record<string, unknown>;
  return (
    typeof row.id === 'string' &&
    typeof row.user_id === 'string' &&
    typeof row.tool_path === 'string' &&
    typeof row.started_at === 'string' &&
    typeof row.arguments === 'string'
  );
}
