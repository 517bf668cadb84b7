import type { Redactor } from './redact.js';
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
  const log = (level: LogLevel, message: string, fields?: Record<string, unknown>) => {
    const head = `{"time":"${isoNow()}","level":"${level}","msg":${JSON.stringify(redactor.text(message))}`;
    const requestId = currentRequestId();
    const own =
      requestId === undefined || (fields !== undefined && 'requestId' in fields)
        ? hasBase
          ? { ...base, ...fields }
          : fields
        : { requestId, ...base, ...fields };
    if (own === undefined) {
      sink.write(`${head}}\n`);
    } else if ('time' in own || 'level' in own || 'msg' in own) {
      // A field may not stand in for the line's own.
      const { time: _time, level: _level, msg: _msg, ...rest } = own;
      sink.write(`${head}${restOfObject(rest, redactor)}\n`);
    } else {
      sink.write(`${head}${restOfObject(own, redactor)}\n`);
    }
  };
  return {
    log,
    info: (message, fields) => log('info', message, fields),
    warn: (message, fields) => log('warn', message, fields),
    error: (message, fields) => log('error', message, fields),
    child: (fields) => createLogger(sink, redactor, { ...base, ...fields }),
  };
}

/** `fields` scrubbed as JSON, without its opening brace, to follow a line's own fields. */
function restOfObject(fields: Record<string, unknown>, redactor: Redactor): string {
  const json = JSON.stringify(redactor.value(fields));
  return json === '{}' ? '}' : `,${json.slice(1)}`;
}

let isoAt = Number.NaN;
let iso = '';

/** The time as ISO 8601 text, made once per millisecond (a busy gateway logs several). */
function isoNow(): string {
  const now = Date.now();
  if (now !== isoAt) {
    isoAt = now;
    iso = new Date(now).toISOString();
  }
  return iso;
}

/** How long a log line may wait for others to share its write, at most. */
const FLUSH_MS = 10;
/** Gathered text past which it is written at once. */
const FLUSH_CHARS = 64 * 1024;

/**
 * A sink that gathers lines for up to {@link FLUSH_MS} (or {@link FLUSH_CHARS} of text) and hands
 * them to `write` at once: a gateway logs a line per request, and a write per line cost a system
 * call each (~10 µs of a one-client call). What is gathered is written at the latest when the
 * process exits; a process killed outright (`kill -9`) loses at most the last few milliseconds of
 * lines. Execution records are not log lines: they are durable before each answer.
 */
export function batchedSink(
  write: (text: string) => void,
  flushMs = FLUSH_MS,
): LogSink & { flush(): void } {
  let pending: string[] = [];
  let size = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (pending.length === 0) return;
    const text = pending.join('');
    pending = [];
    size = 0;
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
      } else if (timer === undefined) {
        timer = setTimeout(flush, flushMs);
        // Lines never keep the process up: it writes them as it exits.
        timer.unref();
      }
    },
  };
}

/** Stdout as a sink, a few milliseconds' lines at a time. */
export const stdoutSink: LogSink = batchedSink((text) => process.stdout.write(text));
