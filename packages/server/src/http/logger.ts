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

/** Stdout as a sink. */
export const stdoutSink: LogSink = { write: (line) => process.stdout.write(line) };
