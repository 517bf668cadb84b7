import { MIN_SECRET_LENGTH, type Redactor } from './redact.js';
import { currentRequestId } from './request-id.js';

export type LogLevel = 'info' | 'warn' | 'error';

/** Where log lines go: one JSON object per line. */
export interface LogSink {
  write(line: string): void;
}

/** A structured logger; every line passes through the redactor. */
export interface ServerLogger {
  log(level: LogLevel, message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /**
   * An `info` line of fields the gateway made itself (`made`: numbers, ids it made, its own route
   * patterns; none of them a caller's text, and none named `time`, `level` or `msg`), written as
   * they are, then `fields`, which may hold a caller's text, scrubbed as every line's: a request's
   * line paid most of its cost scanning figures and patterns that can hold no secret (issue 37).
   */
  infoMade(
    message: string,
    made: Record<string, string | number | undefined>,
    fields: Record<string, unknown>,
  ): void;
  /** A logger adding `fields` to every line. */
  child(fields: Record<string, unknown>): ServerLogger;
}

/**
 * Writes JSON lines `{ time, level, msg, ...fields }` with secrets scrubbed. A field named `time`,
 * `level` or `msg` is left out: those are the line's own. A line written while a request is
 * handled carries its `requestId` (unless it names one itself).
 */
export function createLogger(
  sink: LogSink,
  redactor: Redactor,
  base: Record<string, unknown> = {},
): ServerLogger {
  const hasBase = Object.keys(base).length > 0;
  const headOf = (level: LogLevel, message: string) =>
    `{"time":"${isoNow()}","level":"${level}","msg":${JSON.stringify(redactor.text(message))}`;
  const log = (level: LogLevel, message: string, fields?: Record<string, unknown>) => {
    const head = headOf(level, message);
    const requestId = currentRequestId();
    const own =
      requestId === undefined || (fields !== undefined && 'requestId' in fields)
        ? hasBase
          ? { ...base, ...fields }
          : fields
        : { requestId, ...base, ...fields };
    if (own === undefined) {
      sink.write(`${head}}\n`);
    } else {
      // A field may not stand in for the line's own.
      sink.write(`${head}${restOfObject(withoutOwn(own), redactor)}\n`);
    }
  };
  // infoMade's messages are the gateway's constants ('request'): each scrubbed once, not per line.
  const madeMessages = new Map<string, string>();
  const madeMessage = (message: string) => {
    let scrubbed = madeMessages.get(message);
    if (scrubbed === undefined) {
      scrubbed = JSON.stringify(redactor.text(message));
      // Kept only when no secret, configured or added later, could hide in it: token shapes are
      // fixed, so its scrub holds for good.
      if (message.length < MIN_SECRET_LENGTH && madeMessages.size < MADE_MESSAGES) {
        madeMessages.set(message, scrubbed);
      }
    }
    return scrubbed;
  };
  return {
    log,
    infoMade: (message, made, fields) => {
      const json = JSON.stringify(made);
      const start = `{"time":"${isoNow()}","level":"info","msg":${madeMessage(message)}`;
      const head = json === '{}' ? start : `${start},${json.slice(1, -1)}`;
      const rest = hasBase ? { ...base, ...fields } : fields;
      sink.write(`${head}${restOfObject(withoutOwn(rest), redactor)}\n`);
    },
    info: (message, fields) => log('info', message, fields),
    warn: (message, fields) => log('warn', message, fields),
    error: (message, fields) => log('error', message, fields),
    child: (fields) => createLogger(sink, redactor, { ...base, ...fields }),
  };
}

/** How many distinct messages a logger keeps scrubbed for {@link ServerLogger.infoMade}. */
const MADE_MESSAGES = 16;

/** `fields` without those named like a line's own (`time`, `level`, `msg`). */
function withoutOwn(fields: Record<string, unknown>): Record<string, unknown> {
  if (!('time' in fields || 'level' in fields || 'msg' in fields)) return fields;
  const { time: _time, level: _level, msg: _msg, ...rest } = fields;
  return rest;
}

/** `fields` scrubbed as JSON, without its opening brace, to follow a line's own fields. */
function restOfObject(fields: Record<string, unknown>, redactor: Redactor): string {
  const json = JSON.stringify(redactor.value(fields));
  return json === '{}' ? '}' : `,${json.slice(1)}`;
}

let isoAt = Number.NaN;
let iso = '';
let isoSecond = Number.NaN;
/** The ISO 8601 text of `isoSecond` up to its milliseconds (`2026-11-29T18:04:05.`). */
let isoHead = '';

/**
 * The time as ISO 8601 text (`Date.prototype.toISOString`'s), made once per millisecond (a busy
 * gateway logs several) and formatted by `Date` once per second: a line's milliseconds are
 * appended to the second's text (issue 37: `toISOString` was ~1 % of a call's instructions).
 */
export function isoNow(now = Date.now()): string {
  if (now !== isoAt) {
    isoAt = now;
    const ms = ((now % 1000) + 1000) % 1000;
    const second = now - ms;
    if (second !== isoSecond) {
      isoSecond = second;
      isoHead = new Date(second).toISOString().slice(0, -4);
    }
    iso = `${isoHead}${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z`;
  }
  return iso;
}

/** How long a log line may wait for others to share its write, at most. */
const FLUSH_MS = 10;
/** Gathered text past which it is written at once. */
const FLUSH_CHARS = 64 * 1024;

/**
 * A sink that gathers lines and hands them to `write` together: a gateway logs a line per
 * request, and a write per line cost a system call each (~10 µs of a one-client call).
 *
 * Lines are written at the end of the event loop's turn that logged them (`setImmediate`: the
 * process is awake anyway, answering), unless a write was made less than {@link FLUSH_MS} ago:
 * then they wait for the rest of that window, gathering the lines of a busy gateway's next
 * requests. A 10 ms timer for every quiet spell's first line woke an instance that had gone idle
 * once more for each request it served when requests came more than 10 ms apart (a balancer's
 * share of the traffic, a health check): a wake-up, on a busy machine, costs more than the write
 * (bench/scale/README.md). {@link FLUSH_CHARS} of text are written at once. What is gathered is
 * written at the latest when the process exits; a process killed outright (`kill -9`) loses at
 * most the last few milliseconds of lines. Execution records are not log lines: they are durable
 * before each answer.
 */
export function batchedSink(
  write: (text: string) => void,
  flushMs = FLUSH_MS,
): LogSink & { flush(): void } {
  let pending: string[] = [];
  let size = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let soon: ReturnType<typeof setImmediate> | undefined;
  let wroteAt = Number.NEGATIVE_INFINITY;
  const flush = () => {
    clearTimeout(timer);
    clearImmediate(soon);
    timer = undefined;
    soon = undefined;
    if (pending.length === 0) return;
    const text = pending.join('');
    pending = [];
    size = 0;
    wroteAt = performance.now();
    write(text);
  };
  process.on('exit', flush);
  return {
    flush,
    write(line) {
      pending.push(line);
      size += line.length;
      if (size >= FLUSH_CHARS) {
        flush();
        return;
      }
      if (timer !== undefined || soon !== undefined) return;
      const wait = wroteAt + flushMs - performance.now();
      // A ref'd immediate: an unref'd one does not stop the loop from sleeping in poll, so an
      // idle server's line waited for its next wake-up (logger-idle.test.ts). It holds the
      // process one turn at most; the timer never keeps it up: it writes them as it exits.
      if (wait <= 0) soon = setImmediate(flush);
      else timer = setTimeout(flush, wait).unref();
    },
  };
}

/** Stdout as a sink, a few milliseconds' lines at a time. */
export const stdoutSink: LogSink = batchedSink((text) => process.stdout.write(text));
