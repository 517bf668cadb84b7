import type { GatewayDatabase } from '../db/index.js';
import { isoNow, type ServerLogger } from '../http/logger.js';
import { ExecutionJournal } from './journal.js';
import { type RowValues, rowStore } from './record-rows.js';
import { redactArguments, redactError } from './redact-arguments.js';
import type { ExecutionOutcome } from './tables.js';

/** How a tool call's approval was decided, as the execution record keeps it. */
export type ApprovalDecision = 'approved' | 'declined' | 'cancelled' | 'expired';

/** An execution record's `approval`: a decision, or `pending` while the call waits for one. */
export type ApprovalState = ApprovalDecision | 'pending';

/** One tool call as the recorder receives it. */
export interface ExecutionRecord {
  /** The execution id (`ctx`'s `executionId`). */
  id: string;
  /** The user, or the service account, that called. */
  userId: string;
  toolPath: string;
  startedAt: Date;
  /** The raw arguments; they are redacted before anything is stored. */
  arguments: unknown;
  /** Unset while the call is still running or waiting for input. */
  outcome?: ExecutionOutcome;
  /**
   * How long the call took; while it has no outcome, how long it had run at its latest step (a
   * question asked, a retry), which tells the sweeper of abandoned calls it is alive.
   */
  durationMs?: number;
  approval?: ApprovalState;
  approvedBy?: string;
  /** A short, user-facing reason for an error outcome (never a stack). */
  error?: string;
  /** The MCP endpoint the call came through. */
  endpointId?: string;
  /** The OAuth client of that endpoint (`gw_oat_` tokens). */
  clientId?: string;
}

/** Options of {@link ExecutionRecorder}. */
export interface ExecutionRecorderOptions {
  database: GatewayDatabase;
  logger: ServerLogger;
  /** How long a {@link ExecutionRecorder.write} may wait to be batched with others. Default 50 ms. */
  flushIntervalMs?: number;
  /** Flush at once when this many records are queued. Default 500. */
  maxBatch?: number;
  /** Told of every record committed (a call's answer about to be sent), e.g. for metrics. */
  onCommit?: (record: ExecutionRecord) => void;
  /**
   * How often the SQLite journal is scanned again, after {@link ExecutionRecorder.recover}, for
   * what another gateway on the same file left when it was killed. Default 5 s.
   */
  recoverEveryMs?: number;
  /**
   * On a SQLite file, a commit made this long after the one before, with none waiting for the
   * turn's journal write and the latest write a single row, has its line written at once (it is
   * taken to be alone in its turn); others share the turn's write. Default {@link ALONE_AFTER_MS}.
   */
  aloneAfterMs?: number;
}

/**
 * A commit made this long (ms) after the one before, with none waiting for the turn's journal
 * write and the latest write a single row, is taken to be alone in its turn of the event loop:
 * its line is written at once rather than in the loop's check phase (`setImmediate`), which a
 * lone call's answer waited for (issue 37: one client's calls are ~1 ms apart). Commits closer
 * together, or after a write of several rows (a busy gateway's, several answers in one turn), are
 * written together, one write a turn, as before.
 */
const ALONE_AFTER_MS = 0.5;

/** What a commit written at once answers. */
const STORED: Promise<void> = Promise.resolve();

/** The callers waiting for the records queued since the last batch was taken. */
interface Waiters {
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Stores execution records in batches, one transaction each. Two ways in:
 *
 * - {@link commit} resolves once the record is durable: a call's answer waits for it, so no
 *   answered call is without its record, even if the process is killed the next moment. Commits
 *   are grouped: those made in one turn of the event loop go together, so a busy gateway pays
 *   neither a write nor a transaction per call. On a SQLite file they are appended to a journal
 *   beside it in one write (journal.ts) and stored with the next batch; a commit that comes alone
 *   (`aloneAfterMs`) is appended at once, so a lone call's answer does not wait for the loop's
 *   check phase; a gateway that starts
 *   stores what a killed one left there ({@link recover}). Elsewhere (PostgreSQL, an in-memory
 *   database) they are stored at once, with everything queued, and those made while a batch is
 *   being stored go with the next.
 * - {@link write} only queues (a call's "still running" states): queued records go with the next
 *   batch, every `flushIntervalMs`.
 *
 * A record queued twice before its batch (a call that started and finished in the window) costs
 * one row. A record without an outcome never overwrites one that has it (record-rows.ts).
 *
 * @example
 * const recorder = new ExecutionRecorder({ database, logger });
 * await recorder.recover();
 * recorder.write({ id, userId, toolPath, startedAt, arguments: args });
 * await recorder.commit({ id, userId, toolPath, startedAt, arguments: args, outcome: 'ok', durationMs: 12 });
 */
export class ExecutionRecorder {
  readonly #store: (rows: RowValues[]) => Promise<void>;
  readonly #journal: ExecutionJournal | undefined;
  readonly #logger: ServerLogger;
  readonly #onCommit: ((record: ExecutionRecord) => void) | undefined;
  readonly #interval: number;
  readonly #maxBatch: number;
  /** Records queued by `write` (made into rows when stored) and rows queued by `commit`. */
  #queue = new Map<string, ExecutionRecord | RowValues>();
  #waiters: Waiters | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #commitScheduled = false;
  #flushing: Promise<void> = Promise.resolve();
  #closed = false;
  readonly #recoverEveryMs: number;
  readonly #aloneAfterMs: number;
  #rescan: ReturnType<typeof setInterval> | undefined;
  #recovering: Promise<number> | undefined;
  /** Rows committed this turn, not yet in the journal (SQLite files), and their callers. */
  #unjournaled: RowValues[] = [];
  #journalWaiters: Waiters | undefined;
  /** When the latest commit was made (`performance.now()`), to tell a lone commit from a turn's. */
  #lastCommitAt = -Infinity;
  /**
   * How many rows the latest journal write carried: after a turn that wrote several (a busy
   * gateway), commits wait for the turn's write until a turn writes one again.
   */
  #lastWriteRows = 0;
  readonly #commitQueued = () => {
    this.#commitScheduled = false;
    if (this.#journal === undefined) void this.flush();
    else this.#writeJournal(this.#journal);
  };

  constructor(options: ExecutionRecorderOptions) {
    this.#store = rowStore(options.database);
    const { file } = options.database;
    this.#journal = file === undefined ? undefined : new ExecutionJournal(`${file}-executions`);
    this.#logger = options.logger;
    this.#onCommit = options.onCommit;
    this.#interval = options.flushIntervalMs ?? 50;
    this.#maxBatch = options.maxBatch ?? 500;
    this.#recoverEveryMs = options.recoverEveryMs ?? 5000;
    this.#aloneAfterMs = options.aloneAfterMs ?? ALONE_AFTER_MS;
  }

  /**
   * Queues a record (its latest state wins); never waits for the database. The record is turned
   * into a row (arguments redacted) only when it is stored, once however often it was written.
   */
  write(record: ExecutionRecord): void {
    if (this.#closed) return;
    this.#enqueue(record);
  }

  #enqueue(record: ExecutionRecord | RowValues): void {
    this.#queue.set(isRow(record) ? record[0] : record.id, record);
    if (this.#queue.size >= this.#maxBatch) {
      void this.flush();
    } else if (this.#timer === undefined && this.#waiters === undefined) {
      this.#timer = setTimeout(() => void this.flush(), this.#interval);
      this.#timer.unref?.();
    }
  }

  /**
   * Stores a record, with everything else queued, and resolves once it is in the database.
   *
   * @throws (rejects) when the record cannot be stored: its answer must not be sent as if it were.
   */
  commit(record: ExecutionRecord): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('the execution recorder is closed'));
    this.#onCommit?.(record);
    let row: RowValues;
    try {
      row = toRow(record);
    } catch (error) {
      this.#logger.error('execution record not stored', {
        executionId: record.id,
        error: error instanceof Error ? error.message : String(error),
      });
      return Promise.reject(error);
    }
    let done: Waiters;
    const journal = this.#journal;
    if (journal !== undefined) {
      // Stored with the next batch; durable once its journal line is written.
      this.#enqueue(row);
      const at = performance.now();
      const alone =
        !this.#commitScheduled &&
        this.#lastWriteRows <= 1 &&
        at - this.#lastCommitAt >= this.#aloneAfterMs;
      this.#lastCommitAt = at;
      if (alone) return this.#writeAlone(journal, row);
      this.#unjournaled.push(row);
      done = this.#journalWaiters ??= waiters();
    } else {
      this.#queue.set(record.id, row);
      done = this.#waiters ??= waiters();
    }
    if (!this.#commitScheduled) {
      // After this turn's I/O callbacks: every call settled in the turn commits together.
      this.#commitScheduled = true;
      setImmediate(this.#commitQueued);
    }
    return done.promise;
  }

  /**
   * Appends a commit that came alone (none in the last `aloneAfterMs`, none waiting, the latest
   * write a single row) to the journal at once: its answer goes in this turn, not after the
   * loop's check phase.
   */
  #writeAlone(journal: ExecutionJournal, row: RowValues): Promise<void> {
    this.#lastWriteRows = 1;
    try {
      journal.append([row]);
      return STORED;
    } catch (error) {
      // The row stays queued for the database: its call ran, though its answer is withheld.
      this.#logger.error('execution records not stored', {
        count: 1,
        error: error instanceof Error ? error.message : String(error),
      });
      return Promise.reject(error);
    }
  }

  /** Appends the rows committed this turn to the journal, in one write, and lets their calls go. */
  #writeJournal(journal: ExecutionJournal): void {
    const rows = this.#unjournaled;
    const done = this.#journalWaiters;
    this.#unjournaled = [];
    this.#journalWaiters = undefined;
    if (rows.length > 0) this.#lastWriteRows = rows.length;
    try {
      journal.append(rows);
      done?.resolve();
    } catch (error) {
      // The rows stay queued for the database: their calls ran, though their answers are withheld.
      this.#logger.error('execution records not stored', {
        count: rows.length,
        error: error instanceof Error ? error.message : String(error),
      });
      done?.reject(error);
    }
  }

  /**
   * Stores everything queued by the time the batches before it are stored; resolves when it is
   * in the database (or failed, which is logged; `commit` callers see the failure).
   */
  flush(): Promise<void> {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    // The batch is taken when its turn comes, not now: commits made while a batch is being
    // stored all go in the next one.
    this.#flushing = this.#flushing.then(() => this.#storeQueued());
    return this.#flushing;
  }

  /**
   * Stores the records a gateway that was killed left in the journal (SQLite files only); run
   * at start, before calls are served. Answers how many it stored. From then on the journal is
   * scanned again every `recoverEveryMs`, so the records of another gateway on the same file
   * that is killed meanwhile are stored without waiting for a start.
   */
  async recover(): Promise<number> {
    const journal = this.#journal;
    if (journal === undefined || this.#closed) return 0;
    this.#recovering ??= journal.recover(this.#store).finally(() => {
      this.#recovering = undefined;
    });
    const stored = await this.#recovering;
    if (stored > 0) this.#logger.info('execution records recovered from the journal', { stored });
    if (this.#rescan === undefined && !this.#closed) {
      this.#rescan = setInterval(() => {
        this.recover().catch((error: unknown) => {
          // Left for the next pass: a segment is deleted only once its records are stored.
          this.#logger.warn('execution journal scan failed; retrying on the next pass', {
            error: error instanceof Error ? error.message : String(error),
          });
        });
      }, this.#recoverEveryMs);
      this.#rescan.unref?.();
    }
    return stored;
  }

  /** Flushes and stops taking records (the gateway is stopping). */
  async close(): Promise<void> {
    clearInterval(this.#rescan);
    this.#rescan = undefined;
    await this.#recovering?.catch(() => 0);
    await this.flush();
    this.#closed = true;
    // Every segment is stored, or left for a recovery: the owner lock can go.
    this.#journal?.close();
  }

  async #storeQueued(): Promise<void> {
    if (this.#queue.size === 0) return;
    const waiters = this.#waiters;
    const batch: RowValues[] = [];
    for (const queued of this.#queue.values()) {
      if (isRow(queued)) {
        batch.push(queued);
        continue;
      }
      try {
        batch.push(toRow(queued));
      } catch (error) {
        // A record that cannot be written (an invalid date) must not take the batch with it.
        this.#logger.error('execution record not stored', {
          executionId: queued.id,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
    this.#queue = new Map();
    this.#waiters = undefined;
    // The batch's rows go in the journal before it takes them.
    const journal = this.#journal;
    if (journal !== undefined && this.#unjournaled.length > 0) this.#writeJournal(journal);
    const taken = journal?.take();
    try {
      if (batch.length > 0) await this.#store(batch);
      waiters?.resolve();
    } catch (error) {
      // Its journal segment stays, for the next gateway to start on this database to store.
      this.#logger.error('execution records not stored', {
        count: batch.length,
        error: error instanceof Error ? error.message : String(error),
      });
      waiters?.reject(error);
      if (taken !== undefined) this.#journalStep(() => journal?.failed(taken));
      return;
    }
    if (taken !== undefined) this.#journalStep(() => journal?.stored(taken));
  }

  /**
   * Tidies the journal after a batch. A failure leaves a segment behind, which a later start
   * stores again (changing nothing); thrown here it would end the process (`flush` runs in the
   * background) and stop every later batch (they chain on it).
   */
  #journalStep(step: () => void): void {
    try {
      step();
    } catch (error) {
      this.#logger.warn('execution journal segment not closed', {
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
}

function waiters(): Waiters {
  let resolve: () => void = () => {};
  let reject: (error: unknown) => void = () => {};
  const promise = new Promise<void>((onStored, onFailed) => {
    resolve = onStored;
    reject = onFailed;
  });
  // A failed batch is reported to its callers and logged; no unhandled rejection besides.
  promise.catch(() => {});
  return { promise, resolve, reject };
}

function isRow(queued: ExecutionRecord | RowValues): queued is RowValues {
  return Array.isArray(queued);
}

function toRow(record: ExecutionRecord): RowValues {
  return [
    record.id,
    record.userId,
    record.toolPath,
    // The same text as `toISOString()`, formatted by `Date` once per second (a call's journal
    // line is written before its answer).
    isoNow(record.startedAt.getTime()),
    record.durationMs === undefined ? null : Math.round(record.durationMs),
    record.outcome ?? null,
    record.approval ?? null,
    record.approvedBy ?? null,
    JSON.stringify(redactArguments(record.arguments ?? {})),
    record.error === undefined ? null : redactError(record.error, record.arguments),
    record.endpointId ?? null,
    record.clientId ?? null,
  ];
}
