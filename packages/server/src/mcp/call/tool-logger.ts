import type { Logger } from '@gateway/sdk';
import { LOG_LEVEL_META_KEY, type LoggingLevel } from '@modelcontextprotocol/server';
import type { LogLevel, ServerLogger } from '../../http/logger.js';
import { isRecord } from '../../json/is-record.js';
import type { MountedTool } from '../../registry/index.js';
import type { CallRedaction } from '../call-redaction.js';
import type { CallContext, CallSite } from '../call-site.js';
import { asLogLevel, passes } from '../log-levels.js';

/**
 * `ctx.logger`: lines go to the server log with tool, execution and user attached; a client that
 * asked for log messages (`logging/setLevel` on a 2025 session, the log-level envelope key on
 * 2026-07-28) also receives them. Both are masked by the call's redaction: the server's secrets
 * and token shapes, and every value vended to the call so far.
 */
export function toolLogger(
  log: ServerLogger,
  site: CallSite,
  tool: MountedTool,
  ctx: CallContext,
  redaction: CallRedaction,
): Logger {
  const threshold = clientLogLevel(site, ctx);
  const write = (level: LogLevel, message: string, fields?: Record<string, unknown>) => {
    // The server log masks its own secrets; a vended value only this call knows.
    if (!redaction.vended) {
      log.log(level, message, fields);
      return;
    }
    const masked = redaction.value(fields);
    log.log(level, redaction.text(message), isRecord(masked) ? masked : undefined);
  };
  const forward = (level: LoggingLevel, message: string, fields?: Record<string, unknown>) => {
    if (threshold === undefined || !passes(level, threshold)) return;
    void ctx.mcpReq
      .notify({
        method: 'notifications/message',
        params: { level, logger: tool.path, data: redaction.value({ message, ...fields }) },
      })
      // A notification to a client that has gone is dropped: the call's answer still settles.
      .catch(() => {});
  };
  return {
    info: (message, fields) => {
      write('info', message, fields);
      forward('info', message, fields);
    },
    warn: (message, fields) => {
      write('warn', message, fields);
      forward('warning', message, fields);
    },
    error: (message, fields) => {
      write('error', message, fields);
      forward('error', message, fields);
    },
  };
}

/** A logger made by `make` when a line is first logged. */
export function lazyLogger(make: () => Logger): Logger {
  let logger: Logger | undefined;
  const made = () => {
    logger ??= make();
    return logger;
  };
  return {
    info: (message, fields) => made().info(message, fields),
    warn: (message, fields) => made().warn(message, fields),
    error: (message, fields) => made().error(message, fields),
  };
}

/** Whether the client asked for log messages at `level` (a 2025 session's, or the envelope's). */
export function passesClient(site: CallSite, ctx: CallContext, level: LoggingLevel): boolean {
  const threshold = clientLogLevel(site, ctx);
  return threshold !== undefined && passes(level, threshold);
}

/** The lowest level of log messages the client asked for, if it asked for any. */
export function clientLogLevel(site: CallSite, ctx: CallContext): LoggingLevel | undefined {
  if (site.kind === 'session') return site.sessionLogLevel?.();
  const envelope: object | undefined = ctx.mcpReq.envelope;
  const level: unknown =
    envelope === undefined ? undefined : Reflect.get(envelope, LOG_LEVEL_META_KEY);
  return asLogLevel(level);
}
