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

/** Writes JSON lines `{ time, level, msg, ...fields }` with secrets scrubbed. */
export function createLogger(
  sink: LogSink,
  redactor: Redactor,
  base: Record<string, unknown> = {},
): ServerLogger {
  const log = (level: LogLevel, message: string, fields: Record<string, unknown> = {}) => {
    const line = { time: new Date().toISOString(), level, msg: message, ...base, ...fields };
    sink.write(`${JSON.stringify(redactor.value(line))}\n`);
  };
  return {
    log,
    info: (message, fields) => log('info', message, fields),
    warn: (message, fields) => log('warn', message, fields),
    error: (message, fields) => log('error', message, fields),
    child: (fields) => createLogger(sink, redactor, { ...base, ...fields }),
  };
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
