import type { healthSchema } from '@gateway/sdk/contract';
import { sql } from 'kysely';
import type { z } from 'zod';
import type { GatewayDatabase } from '../db/index.js';

/** Whether the database answered when last asked. */
export type DatabaseState = z.infer<typeof healthSchema>['database'];

/** How long a probe may take before the database counts as down. */
const PROBE_TIMEOUT_MS = 2000;
/** How old the last answer may be before `/healthz` asks again, in the background. */
const STALE_MS = 2000;

/**
 * What this instance knows of its database: asked on demand (`/readyz`), and told by requests
 * that found it unavailable, so `/healthz` can report it without waiting for a query.
 *
 * @example
 * const health = new DatabaseHealth(database);
 * if (!(await health.probe())) return notReady();
 */
export class DatabaseHealth {
  readonly #database: GatewayDatabase;
  readonly #timeoutMs: number;
  readonly #now: () => number;
  #state: DatabaseState = 'up';
  #checkedAt: number;
  #probing: Promise<boolean> | undefined;

  constructor(database: GatewayDatabase, options: { timeoutMs?: number; now?: () => number } = {}) {
    this.#database = database;
    this.#timeoutMs = options.timeoutMs ?? PROBE_TIMEOUT_MS;
    this.#now = options.now ?? Date.now;
    // The database answered as the gateway opened it.
    this.#checkedAt = this.#now();
  }

  /** The state when last known; starts a probe in the background when that is stale. */
  get state(): DatabaseState {
    if (this.#now() - this.#checkedAt > STALE_MS) void this.probe();
    return this.#state;
  }

  /** A request found the database unavailable. */
  noteUnavailable(): void {
    this.#state = 'down';
    this.#checkedAt = this.#now();
  }

  /**
   * Asks the database a trivial query; true when it answers within the probe timeout. Probes
   * asked for while one runs share it, so a storm of health checks costs one query.
   */
  probe(): Promise<boolean> {
    this.#probing ??= this.#ask().finally(() => {
      this.#probing = undefined;
    });
    return this.#probing;
  }

  async #ask(): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), this.#timeoutMs);
    });
    const answered = sql`select 1`.execute(this.#database.db).then(
      () => true,
      () => false,
    );
    const up = await Promise.race([answered, timedOut]);
    clearTimeout(timer);
    this.#state = up ? 'up' : 'down';
    this.#checkedAt = this.#now();
    return up;
  }
}
