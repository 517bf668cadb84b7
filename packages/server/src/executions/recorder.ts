import { CompiledQuery, type Insertable, sql } from 'kysely';
import type {
  DatabaseDialect,
  ExecutionOutcome,
  ExecutionsTable,
  GatewayDatabase,
} from '../db/index.js';
import type { ServerLogger } from '../http/logger.js';
import { redactArguments, redactError } from './redact-arguments.js';

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
}

/** Options of {@link ExecutionRecorder}. */
export interface ExecutionRecorderOptions {
  database: GatewayDatabase;
  logger: ServerLogger;
  /** How long a write may wait to be batched with others. Default 50 ms. */
  flushIntervalMs?: number;
  /** Flush at once when this many records are queued. Default 500. */
  maxBatch?: number;
}

type Row = Insertable<ExecutionsTable>;

/**
 * Writes execution records off the call path: `write()` only queues, and queued records are
 * stored in batches (one multi-row upsert per flush). A record written twice before a flush (a call
 * that started and finished within the window) costs one row write. A record without an outcome
 * never overwrites one that has it, so a late "still running" write from one instance cannot undo
 * the result another instance stored.
 *
 * @example
 * const recorder = new ExecutionRecorder({ database, logger });
 * recorder.write({ id, userId, toolPath, startedAt, arguments: args });
 * recorder.write({ id, userId, toolPath, startedAt, arguments: args, outcome: 'ok', durationMs: 12 });
 * await recorder.flush();
 */
export class ExecutionRecorder {
  readonly #database: GatewayDatabase;
  readonly #logger: ServerLogger;
  readonly #interval: number;
  readonly #maxBatch: number;
  #queue = new Map<string, ExecutionRecord>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #flushing: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(options: ExecutionRecorderOptions) {
    this.#database = options.database;
    this.#logger = options.logger;
    this.#interval = options.flushIntervalMs ?? 50;
    this.#maxBatch = options.maxBatch ?? 500;
  }

  /**
   * Queues a record (its latest state wins); never waits for the database. The record is turned
   * into a row (arguments redacted) only when it is stored, once however often it was written.
   */
  write(record: ExecutionRecord): void {
    if (this.#closed) return;
    this.#queue.set(record.id, record);
    if (this.#queue.size >= this.#maxBatch) {
      void this.flush();
    } else if (this.#timer === undefined) {
      this.#timer = setTimeout(() => void this.flush(), this.#interval);
      this.#timer.unref?.();
    }
  }

  /** Stores everything queued so far; resolves when it is in the database. */
  flush(): Promise<void> {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    const batch: Row[] = [];
    for (const record of this.#queue.values()) {
      try {
        batch.push(toRow(record));
      } catch (error) {
        // A record that cannot be written (an invalid date) must not take the batch with it.
        this.#logger.error('execution record not stored', {
          executionId: record.id,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
    this.#queue = new Map();
    // Batches are stored one after another, so a later state never lands before an earlier one.
    this.#flushing = this.#flushing.then(() => (batch.length > 0 ? this.#store(batch) : undefined));
    return this.#flushing;
  }

  /** Flushes and stops taking records (the gateway is stopping). */
  async close(): Promise<void> {
    await this.flush();
    this.#closed = true;
  }

  async #store(rows: Row[]): Promise<void> {
    try {
      if (this.#database.dialect === 'sqlite') {
        await this.#database.db.connection().execute(async (connection) => {
          // The connection is held: nothing else runs between the pragmas, so every other commit
          // stays synced (sqlite.ts). In WAL mode a NORMAL commit is not fsynced until the next
          // synced commit or checkpoint: a power cut (not a crash of the process) may lose the
          // last records, as it would lose those still queued. Syncing each batch held the event
          // loop for 1 to 3 ms.
          await sql`pragma synchronous = NORMAL`.execute(connection);
          try {
            await connection.transaction().execute(async (transaction) => {
              for (const chunk of sqliteChunks(rows))
                await transaction.executeQuery(upsertQuery('sqlite', chunk));
            });
          } finally {
            await sql`pragma synchronous = FULL`.execute(connection);
          }
        });
      } else {
        await this.#database.db.executeQuery(upsertQuery('postgres', rows));
      }
    } catch (error) {
      this.#logger.error('execution records not stored', {
        count: rows.length,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
}

const COLUMNS = [
  'id',
  'user_id',
  'tool_path',
  'started_at',
  'duration_ms',
  'outcome',
  'approval',
  'approved_by',
  'arguments',
  'error',
] as const satisfies readonly (keyof Row)[];
// `arguments` too: a call's last write masks the values it was vended (mcp/call-redaction.ts),
// which its first write, stored before the tool ran, could not know.
const UPDATED = [
  'duration_ms',
  'outcome',
  'approval',
  'approved_by',
  'arguments',
  'error',
] as const;
const upsertSql = new Map<string, string>();

/**
 * Rows per statement on SQLite, largest first. SQLite prepares each statement it runs, and the
 * gateway keeps statements prepared (db/sqlite.ts); a statement per batch size was prepared anew
 * for most batches (~3 µs a record), where these few sizes are prepared once.
 */
const SQLITE_CHUNK_SIZES = [32, 8, 2, 1];

/** `rows` in chunks of {@link SQLITE_CHUNK_SIZES}: 45 rows as 32, 8, 2, 2 and 1. */
function sqliteChunks(rows: Row[]): Row[][] {
  const chunks: Row[][] = [];
  let at = 0;
  for (const size of SQLITE_CHUNK_SIZES) {
    while (rows.length - at >= size) {
      chunks.push(rows.slice(at, at + size));
      at += size;
    }
  }
  return chunks;
}

/**
 * One multi-row upsert of `rows`, in which a record never loses the outcome it has. Its SQL is
 * written once per dialect and number of rows: kysely's builder spent ~8 µs a record building and
 * compiling a 50-row insert, more than SQLite spends storing it.
 */
function upsertQuery(dialect: DatabaseDialect, rows: Row[]): CompiledQuery {
  const key = `${dialect}:${rows.length}`;
  let text = upsertSql.get(key);
  if (text === undefined) {
    let next = 0;
    const placeholder = dialect === 'postgres' ? () => `$${++next}` : () => '?';
    const tuples = rows.map(() => `(${COLUMNS.map(placeholder).join(', ')})`);
    text =
      `insert into "executions" (${COLUMNS.map((column) => `"${column}"`).join(', ')}) values ` +
      `${tuples.join(', ')} on conflict ("id") do update set ` +
      `${UPDATED.map((column) => `"${column}" = "excluded"."${column}"`).join(', ')} ` +
      'where "executions"."outcome" is null';
    upsertSql.set(key, text);
  }
  const parameters: unknown[] = [];
  for (const row of rows) for (const column of COLUMNS) parameters.push(row[column] ?? null);
  return CompiledQuery.raw(text, parameters);
}

function toRow(record: ExecutionRecord): Row {
  return {
    id: record.id,
    user_id: record.userId,
    tool_path: record.toolPath,
    started_at: record.startedAt.toISOString(),
    duration_ms: record.durationMs === undefined ? null : Math.round(record.durationMs),
    outcome: record.outcome ?? null,
    approval: record.approval ?? null,
    approved_by: record.approvedBy ?? null,
    arguments: JSON.stringify(redactArguments(record.arguments ?? {})),
    error: record.error === undefined ? null : redactError(record.error, record.arguments),
  };
}
