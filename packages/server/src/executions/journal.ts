import { randomBytes } from 'node:crypto';
import {
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Row } from './record-rows.js';

/** A segment another live process may still be writing is left alone until it is this old. */
const ABANDONED_AFTER_MS = 60_000;

/** The segment name prefixes of this process's journals (several gateways may share a file). */
const ours = new Set<string>();

/**
 * An append-only file of execution records, beside a SQLite database, that makes a record
 * durable before the call's answer is sent without a SQLite transaction per call.
 *
 * Records are appended as JSON lines, those committed in one turn of the event loop in one
 * `write(2)` (once it returns, they survive a crash of the process, as a SQLite commit without
 * fsync does) and stored in the database with
 * the next batch. Each batch takes the segment its records were appended to ({@link rotate}) and
 * deletes it once the batch is committed ({@link remove}). Segments left behind by a process
 * that died are stored by the next gateway to start on the database ({@link recover}); storing
 * one twice changes nothing (the upsert never undoes a stored outcome).
 *
 * Segment names carry the host, the process id and its start time, so a gateway recognises its
 * own, those of a process that is gone (same host, no such process, or the same process id
 * from before a restart), and those of another host's process (left for a minute).
 */
export class ExecutionJournal {
  readonly #dir: string;
  readonly #prefix: string;
  #sequence = 0;
  #fd: number | undefined;
  #segment: string | undefined;

  constructor(dir: string) {
    this.#dir = dir;
    // The start token tells this process from an earlier one with the same id (a container's 1).
    this.#prefix = `${hostTag()}.${process.pid}.${Date.now().toString(36)}${randomBytes(4).toString('hex')}`;
    ours.add(this.#prefix);
  }

  /** Appends `rows` in one write; once this returns they survive a crash of this process. */
  append(rows: readonly Row[]): void {
    if (rows.length === 0) return;
    if (this.#fd === undefined) {
      mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
      this.#segment = join(this.#dir, `${this.#prefix}.${++this.#sequence}.jsonl`);
      // Readable by its owner only: the records' arguments are redacted, but private.
      this.#fd = openSync(this.#segment, 'a', 0o600);
    }
    let lines = '';
    for (const row of rows) lines += `${JSON.stringify(row)}\n`;
    writeSync(this.#fd, lines);
  }

  /**
   * Ends the current segment: later appends go to a new one. Answers the ended segment.
   *
   * @throws whatever closing its file throws; later appends still go to a new segment.
   */
  rotate(): string | undefined {
    const segment = this.#segment;
    const fd = this.#fd;
    this.#fd = undefined;
    this.#segment = undefined;
    if (fd !== undefined) closeSync(fd);
    return segment;
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
   * Answers how many records were stored.
   */
  async recover(store: (rows: Row[]) => Promise<void>): Promise<number> {
    let names: string[];
    try {
      names = readdirSync(this.#dir);
    } catch (error) {
      if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return 0;
      throw error;
    }
    let stored = 0;
    for (const name of names) {
      if (!name.endsWith('.jsonl') || ours.has(name.split('.').slice(0, 3).join('.'))) continue;
      const path = join(this.#dir, name);
      if (!this.#abandoned(name, path)) continue;
      const rows = readRows(path);
      for (let at = 0; at < rows.length; at += 500) await store(rows.slice(at, at + 500));
      stored += rows.length;
      this.remove(path);
    }
    return stored;
  }

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

function readRows(path: string): Row[] {
  const rows: Row[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line === '') continue;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      // A torn line: the process died writing it, before the call was answered.
      continue;
    }
    if (isRow(row)) rows.push(row);
  }
  return rows;
}

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
