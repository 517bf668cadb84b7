import type { GatewayDatabase } from '../../db/database.js';
import { closeAbandonedExecutions } from '../../executions/index.js';
import type { ServerLogger } from '../../http/logger.js';
import { forgetExpiredRounds } from './round-store.js';

/** Options of {@link AbandonedCallSweeper}. */
export interface AbandonedCallSweeperOptions {
  services: { database: GatewayDatabase; logger: ServerLogger };
  /** How long a call may wait for an answer. */
  approvalTimeoutMs: number;
  /** How long a handler may run. */
  toolTimeoutMs: number;
  /** How often to sweep. */
  everyMs: number;
}

/**
 * Closes out tool calls nobody will finish, periodically: a 2026-07-28 client that was asked a
 * question and never retried, or a call on an instance that stopped. A call is alive for at most
 * the approval timeout plus the tool's time limit after its latest step (each question restarts
 * the wait; the time limit counts only running time), plus a margin for clocks and batched
 * writes; past that its record becomes `timeout`, and a `pending` question `expired`. Used
 * request-state rounds are forgotten once their state no longer verifies.
 *
 * Every instance sweeps; the updates are conditional, so they never undo a result or each other.
 *
 * @example
 * const sweeper = new AbandonedCallSweeper({ services, approvalTimeoutMs, toolTimeoutMs, everyMs: 60_000 });
 * sweeper.start();
 */
export class AbandonedCallSweeper {
  readonly #options: AbandonedCallSweeperOptions;
  readonly #windowMs: number;
  #timer: ReturnType<typeof setInterval> | undefined;
  #sweeping: Promise<void> | undefined;

  constructor(options: AbandonedCallSweeperOptions) {
    this.#options = options;
    const alive = options.approvalTimeoutMs + options.toolTimeoutMs;
    this.#windowMs = alive + Math.min(5000, alive);
  }

  /** How long after its latest step a call without an outcome counts as abandoned. */
  get windowMs(): number {
    return this.#windowMs;
  }

  /** Sweeps every `everyMs` until {@link stop}; does not keep the process alive. */
  start(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => void this.sweep(), this.#options.everyMs);
    this.#timer.unref?.();
  }

  /**
   * One pass (a pass still running is joined, not doubled). Failures are logged: the next pass
   * tries again.
   */
  sweep(now: Date = new Date()): Promise<void> {
    this.#sweeping ??= this.#pass(now).finally(() => {
      this.#sweeping = undefined;
    });
    return this.#sweeping;
  }

  /** Stops sweeping and waits for a pass in progress. */
  async stop(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#sweeping;
  }

  async #pass(now: Date): Promise<void> {
    const { database, logger } = this.#options.services;
    try {
      const closed = await closeAbandonedExecutions(database, { now, windowMs: this.#windowMs });
      if (closed > 0) logger.info('abandoned tool calls closed as timed out', { count: closed });
      await forgetExpiredRounds(database.db, now);
    } catch (error) {
      logger.warn('sweep of abandoned tool calls failed; the next pass retries', {
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
}
