import type { ServerLogger } from '../http/logger.js';

/** How long the refusals of one source and method after a logged one are counted, not logged. */
export const REFUSAL_LOG_WINDOW_MS = 60_000;

const REFUSED = 'upstream request refused: it belongs to no call in progress';
const MORE_REFUSED = 'upstream requests refused: they belong to no call in progress';

/** Logs an upstream's refused requests without letting the upstream flood the log. */
export interface RefusalLog {
  /** The upstream's request `method` was refused: it belongs to no call in progress. */
  refused(method: string): void;
  /** Logs the counts not logged yet and stops the windows' timers (the source is removed). */
  close(): void;
}

interface Window {
  notLogged: number;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * A {@link RefusalLog} of source `sourceId` on `logger`. An upstream decides how many requests it
 * sends outside any call, and a hostile one can send thousands a second: a line each would bury
 * the log. The first refusal of a method is logged at once (source and method, never what it
 * asked); the same method's later ones within the window are counted, and one line at the
 * window's end (or when the source is removed) says how many (`count`). The next refusal after
 * that is logged at once again: at most two lines a window per source and method, however many
 * come.
 *
 * @example
 * const refusals = createRefusalLog(logger, 'github');
 * refusals.refused('elicitation/create'); // logged
 * refusals.refused('elicitation/create'); // counted; logged with the count when the window ends
 */
export function createRefusalLog(
  logger: ServerLogger,
  sourceId: string,
  options: { windowMs?: number } = {},
): RefusalLog {
  const windowMs = options.windowMs ?? REFUSAL_LOG_WINDOW_MS;
  const windows = new Map<string, Window>();
  const end = (method: string) => {
    const window = windows.get(method);
    if (window === undefined) return;
    clearTimeout(window.timer);
    windows.delete(method);
    if (window.notLogged === 0) return;
    logger.warn(MORE_REFUSED, {
      sourceId,
      method,
      count: window.notLogged,
      withinSeconds: Math.ceil(windowMs / 1000),
    });
  };
  return {
    refused(method) {
      const window = windows.get(method);
      if (window !== undefined) {
        window.notLogged += 1;
        return;
      }
      logger.warn(REFUSED, { sourceId, method });
      const timer = setTimeout(() => end(method), windowMs);
      timer.unref();
      windows.set(method, { notLogged: 0, timer });
    },
    close() {
      for (const method of [...windows.keys()]) end(method);
    },
  };
}
