import type { ServerLogger } from '../../../http/logger.js';
import type { SharedSessions } from '../shared-sessions/index.js';
import type { HeldSessions } from './held-sessions.js';
import { closeSession } from './session.js';

const SWEEP_EVERY_MS = 60_000;

/**
 * What runs the sweeps once sweeping starts: given the sweep (it resolves once the database's
 * sweep is over, and never rejects) and how often it is due, it returns what stops it.
 */
export type SweepTimer = (sweep: () => Promise<void>, everyMs: number) => () => void;

/** Every `everyMs` on a timer that keeps nothing alive. */
const intervalTimer: SweepTimer = (sweep, everyMs) => {
  const timer = setInterval(() => void sweep(), everyMs);
  timer.unref?.();
  return () => clearInterval(timer);
};

/** Options of {@link IdleSweeper}. */
export interface IdleSweeperOptions {
  /** A session unused this long is closed. */
  idleMs: number;
  /** PostgreSQL: a copy rebuilt here of a session opened elsewhere, unused this long, is dropped. */
  rebuiltIdleMs?: number;
  logger?: Pick<ServerLogger, 'warn'>;
  /** PostgreSQL: the sweep also expires the sessions of every instance in the database. */
  shared?: Pick<SharedSessions, 'ensureListening' | 'sweep'>;
  /**
   * What runs the sweeps. Default an interval of half the shortest idle time, at least 50 ms and
   * at most a minute; the tests run each sweep themselves instead of waiting for it.
   */
  sweepTimer?: SweepTimer;
}

/**
 * Closes the held sessions unused for `idleMs`, on a timer that runs while there is something to
 * sweep: on SQLite while sessions are held, on PostgreSQL from the start (the database's sessions
 * expire even while this instance holds none). A session with a request in flight is not idle; on
 * PostgreSQL neither is one with a GET stream open here. Never throws: a failed database sweep is
 * logged.
 *
 * @example
 * const sweeper = new IdleSweeper(held, { idleMs: 30 * 60_000, logger });
 * sweeper.start();
 * sweeper.stop();
 */
export class IdleSweeper {
  readonly #held: HeldSessions;
  readonly #options: IdleSweeperOptions;
  /** Stops the sweeps while sweeping. */
  #stop: (() => void) | undefined;

  constructor(held: HeldSessions, options: IdleSweeperOptions) {
    this.#held = held;
    this.#options = options;
  }

  /** Starts sweeping, unless sweeping already. */
  start(): void {
    if (this.#stop !== undefined) return;
    // A short idle time (tests) is swept at least twice within it.
    const shortest = Math.min(this.#options.idleMs, this.#options.rebuiltIdleMs ?? Infinity);
    const every = Math.min(SWEEP_EVERY_MS, Math.max(50, shortest / 2));
    this.#stop = (this.#options.sweepTimer ?? intervalTimer)(() => this.#sweep(), every);
  }

  /** Stops sweeping (the gateway is stopping). */
  stop(): void {
    this.#stop?.();
    this.#stop = undefined;
  }

  async #sweep(): Promise<void> {
    const shared = this.#options.shared !== undefined;
    const now = Date.now();
    const cutoff = now - this.#options.idleMs;
    const copyCutoff = now - (this.#options.rebuiltIdleMs ?? this.#options.idleMs);
    const busy: string[] = [];
    for (const session of this.#held.values()) {
      // A call longer than the idle time (an approval waited on) is no idle session; on
      // PostgreSQL neither is a client listening here, which other instances cannot see.
      const inUse = session.inFlight > 0 || (shared && session.listening > 0);
      if (inUse && shared) busy.push(session.id);
      // A rebuilt copy goes sooner: only the copy, the session lives on in the database.
      if (shared && session.rebuilt === true && !inUse && session.lastSeen <= copyCutoff) {
        this.#held.remove(session);
        void closeSession(session);
        continue;
      }
      // Oldest first: on one instance the first session still in use ends the sweep.
      if (session.lastSeen > cutoff) {
        if (shared) continue;
        break;
      }
      if (inUse) continue;
      this.#held.remove(session);
      void closeSession(session);
    }
    if (this.#options.shared !== undefined) {
      // Listening again if the connection was lost, while there are copies to tell about.
      if (this.#held.size > 0) void this.#options.shared.ensureListening();
      await this.#options.shared.sweep(busy).catch((error: unknown) => {
        this.#options.logger?.warn('MCP session sweep failed', {
          error: error instanceof Error ? error.message : String(error),
        });
      });
    } else if (this.#held.size === 0) {
      this.stop();
    }
  }
}
