interface Waiter {
  /** `performance.now()` at which it expires. */
  at: number;
  expired: () => void;
  /** The next and previous waits in the order they began, while this one waits. */
  next: Waiter | undefined;
  previous: Waiter | undefined;
  /** Neither expired nor stopped yet. */
  waiting: boolean;
}

/**
 * The deadlines of every session call waiting to be answered as one JSON body (session-call.ts),
 * kept by one timer: each waits the same time, so they expire in the order they began, and the
 * timer is set for the oldest only. A timer of each call's own cost the call a `Timeout`, its
 * insertion in Node's timer lists and, with one call at a time, a new list and a new libuv timer
 * every call (bench/mcp/README.md, sess37); a wait here is a link in a list. A `Set` of the waits
 * cost a call, at one call at a time, V8's shrinking of its table on the `delete` that emptied
 * it (~2 k instructions, a new table allocated: issue 37). Never throws.
 *
 * @example
 * const clock = new GatherClock(50);
 * const stop = clock.after(() => handOver());
 * // the call ended first:
 * stop();
 */
export class GatherClock {
  readonly #ms: number;
  /** The oldest and newest waits: they expire in the order they began. */
  #first: Waiter | undefined;
  #last: Waiter | undefined;
  #size = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(ms: number) {
    this.#ms = ms;
  }

  /**
   * Calls `expired` once the clock's time has passed from `from` (a `performance.now()` of the
   * caller's, now by default), unless the function returned is called first (calling it later
   * does nothing). `from` must not be earlier than that of a wait begun before: the waits expire
   * in the order they began.
   */
  after(expired: () => void, from = performance.now()): () => void {
    const last = this.#last;
    const waiter: Waiter = {
      at: from + this.#ms,
      expired,
      next: undefined,
      previous: last,
      waiting: true,
    };
    if (last === undefined) this.#first = waiter;
    else last.next = waiter;
    this.#last = waiter;
    this.#size += 1;
    if (this.#timer === undefined) this.#arm(this.#ms);
    return () => this.#remove(waiter);
  }

  /** How many waits have neither expired nor been stopped. */
  get size(): number {
    return this.#size;
  }

  #remove(waiter: Waiter): void {
    if (!waiter.waiting) return;
    waiter.waiting = false;
    const { next, previous } = waiter;
    if (previous === undefined) this.#first = next;
    else previous.next = next;
    if (next === undefined) this.#last = previous;
    else next.previous = previous;
    waiter.next = undefined;
    waiter.previous = undefined;
    this.#size -= 1;
  }

  #arm(ms: number): void {
    // A deadline alone keeps nothing alive: whatever waits on it holds a request open.
    this.#timer = setTimeout(() => this.#tick(), ms).unref();
  }

  #tick(): void {
    this.#timer = undefined;
    const now = performance.now();
    for (let waiter = this.#first; waiter !== undefined; waiter = this.#first) {
      if (waiter.at > now) {
        this.#arm(waiter.at - now);
        return;
      }
      this.#remove(waiter);
      waiter.expired();
    }
  }
}
