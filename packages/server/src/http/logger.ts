import type { Redactor } from './redact.js';

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
 * `level` or `msg` is left out: those are the line's own.
 */
export function createLogger(
  sink: LogSink,
  redactor: Redactor,
  base: Record<string, unknown> = {},
): ServerLogger {
  const hasBase = Object.keys(base).length > 0;
  const log = (level: LogLevel, message: string, fields?: Record<string, unknown>) => {
    const head = `{"time":"${isoNow()}","level":"${level}","msg":${JSON.stringify(redactor.text(message))}`;
    const own = hasBase ? { ...base, ...fields } : fields;
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

/**
 * A sink that gathers the lines of one turn of the event loop and hands them to `write` at once:
 * a busy gateway logs a line per request, and one write per line cost a system call each. What
 * is gathered is written at the end of the turn, and at the latest when the process exits.
 */
export function batchedSink(write: (text: string) => void): LogSink & { flush(): void } {
  let pending: string[] = [];
  const flush = () => {
    if (pending.length === 0) return;
    const text = pending.join('');
    pending = [];
    write(text);
  };
  process.on('exit', flush);
  return {
    flush,
    write(line) {
      if (pending.length === 0) setImmediate(flush);
      pending.push(line);
    },
  };
}

/** Stdout as a sink, a turn's lines at a time. */
export const stdoutSink: LogSink = batchedSink((text) => process.stdout.write(text));
