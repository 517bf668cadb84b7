import type { ServerLogger } from '../../../http/logger.js';
import type { SharedSessions } from '../shared-sessions/index.js';
import type { HeldSessions } from './held-sessions.js';
import { closeSession } from './session.js';

const SWEEP_EVERY_MS = 60_000;

/** Options of {@link IdleSweeper}. */
export interface IdleSweeperOptions {
  /** A session unused this long is closed. */
  idleMs: number;
  /** PostgreSQL: a copy rebuilt here of a session opened elsewhere, unused this long, is dropped. */
  rebuiltIdleMs?: number;
  logger?: Pick<ServerLogger, 'warn'>;
  /** PostgreSQL: the sweep also expires the sessions of every instance in the database. */
  shared?: Pick<SharedSessions, 'ensureListening' | 'sweep'>;
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
  #sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(held: HeldSessions, options: IdleSweeperOptions) {
    this.#held = held;
    this.#options = options;
  }

  /** Starts sweeping, unless sweeping already. */
  start(): void {
    if (this.#sweeper !== undefined) return;
    // A short idle time (tests) is swept at least twice within it.
    const shortest = Math.min(this.#options.idleMs, this.#options.rebuiltIdleMs ?? Infinity);
    const every = Math.min(SWEEP_EVERY_MS, Math.max(50, shortest / 2));
    this.#sweeper = setInterval(() => this.#sweep(), every);
    this.#sweeper.unref?.();
  }

  /** Stops sweeping (the gateway is stopping). */
  stop(): void {
    if (this.#sweeper !== undefined) clearInterval(this.#sweeper);
    this.#sweeper = undefined;
  }

  #sweep(): void {
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
      this.#options.shared.sweep(busy).catch((error: unknown) => {
        this.#options.logger?.warn('MCP session sweep failed', {
          error: error instanceof Error ? error.message : String(error),
        });
      });
    } else if (this.#held.size === 0 && this.#sweeper !== undefined) {
      clearInterval(this.#sweeper);
      this.#sweeper = undefined;
    }
  }
}
