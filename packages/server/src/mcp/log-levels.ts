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

/** `value` as a log level, or undefined when it is not one. */
export function asLogLevel(value: unknown): LoggingLevel | undefined {
  return LOG_LEVELS.find((level) => level === value);
}

/** Whether a message at `level` passes a client's `threshold`. */
export function passes(level: LoggingLevel, threshold: LoggingLevel): boolean {
  return LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(threshold);
}
