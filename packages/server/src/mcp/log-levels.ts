import type { LoggingLevel } from '@modelcontextprotocol/server';

/** MCP log levels, least severe first. */
export const LOG_LEVELS: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

const LEVEL_SET: ReadonlySet<unknown> = new Set(LOG_LEVELS);

/**
 * `value` as a log level, or undefined when it is not one. One set lookup: a scan of the list with
 * a callback cost every upstream call ~1.4 k instructions to find no level (issue 37).
 */
export function asLogLevel(value: unknown): LoggingLevel | undefined {
  return LEVEL_SET.has(value) ? (value as LoggingLevel) : undefined;
}

/** Whether a message at `level` passes a client's `threshold`. */
export function passes(level: LoggingLevel, threshold: LoggingLevel): boolean {
  return LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(threshold);
}
