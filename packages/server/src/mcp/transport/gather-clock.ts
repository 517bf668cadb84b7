interface Waiter {
  /** `performance.now()` at which it expires. */
  at: number;
  expired: () => void;
}

/**
 * The deadlines of every session call waiting to be answered as one JSON body (session-call.ts),
 * kept by one timer: each waits the same time, so they expire in the order they began, and the
 * timer is set for the oldest only. A timer of each call's own cost the call a `Timeout`, its
 * insertion in Node's timer lists and, with one call at a time, a new list and a new libuv timer
 * every call (bench/mcp/README.md, sess37); a wait here is an entry in a `Set`. Never throws.
 *
 * @example
 * const clock = new GatherClock(50);
 * const stop = clock.after(() => handOver());
 * // the call ended first:
 * stop();
 */
export class GatherClock {
  readonly #ms: number;
  /** In the order they began, which is the order they expire in (a Set keeps insertion order). */
  readonly #waiting = new Set<Waiter>();
  #timer: NodeJS.Timeout | undefined;

  constructor(ms: number) {
    this.#ms = ms;
  }

  /**
   * Calls `expired` once the clock's time has passed from `from` (a `performance.now()` of the
   * caller's, now by default), unless the function returned is called first (calling it later
   * does nothing).
   */
  after(expired: () => void, from = performance.now()): () => void {
    const waiter: Waiter = { at: from + this.#ms, expired };
    this.#waiting.add(waiter);
    if (this.#timer === undefined) this.#arm(this.#ms);
    return () => {
      this.#waiting.delete(waiter);
    };
  }

  /** How many waits have neither expired nor been stopped. */
  get size(): number {
    return this.#waiting.size;
  }

  #arm(ms: number): void {
    // A deadline alone keeps nothing alive: whatever waits on it holds a request open.
    this.#timer = setTimeout(() => this.#tick(), ms).unref();
  }

  #tick(): void {
    this.#timer = undefined;
    const now = performance.now();
    for (const waiter of this.#waiting) {
      if (waiter.at > now) {
        this.#arm(waiter.at - now);
        return;
      }
      this.#waiting.delete(waiter);
      waiter.expired();
    }
  }
}
