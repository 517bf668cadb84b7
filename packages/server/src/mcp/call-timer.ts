/**
 * What runs a call's time limit: `set` arms a timer that calls `expire` after `ms` and answers a
 * handle, `clear` disarms it by that handle. A handle object, not a closure per call; the tests
 * give the gateway one they fire.
 */
export interface CallTimer {
  set(expire: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

/** setTimeout's longest delay: it takes a longer one as 1 ms. */
const LONGEST_DELAY_MS = 2 ** 31 - 1;

interface Deadline {
  /** `performance.now()` at which it expires. */
  at: number;
  expire: () => void;
}

/**
 * The time limits of every running call, kept by one timer set for the earliest of them. A
 * `setTimeout` of each call's own cost the call a `Timeout`, its insertion in Node's timer lists
 * and, with one call at a time, a new list and a new libuv timer on every call, then its removal
 * when the call ended, all before the call's answer (bench/mcp/README.md, issue 37). Here a
 * limit is an entry in a `Set`: calls share one limit (`GATEWAY_TOOL_TIMEOUT_MS`), so a new one
 * is almost never the earliest and the timer is left as it is; one ended early leaves the timer
 * to fire at its time, which then looks for what is due and sets itself for the next. Keeps
 * nothing alive. Every limit that is due is called though one throws; then the first error is
 * thrown (from the timer, as a `setTimeout` of its own would have). A limit past setTimeout's
 * longest delay (~24.8 days) is waited for in steps of it.
 *
 * @example
 * const clock = new DeadlineClock();
 * const handle = clock.set(() => stop(), 60_000);
 * clock.clear(handle); // the call ended first
 */
export class DeadlineClock implements CallTimer {
  readonly #waiting = new Set<Deadline>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The deadline the timer is set for; infinite when none is. */
  #armedAt = Number.POSITIVE_INFINITY;

  set(expire: () => void, ms: number): Deadline {
    const deadline: Deadline = { at: performance.now() + ms, expire };
    this.#waiting.add(deadline);
    if (deadline.at < this.#armedAt) this.#arm(deadline.at);
    return deadline;
  }

  clear(handle: unknown): void {
    this.#waiting.delete(handle as Deadline);
  }

  /** How many limits have neither expired nor been cleared. */
  get size(): number {
    return this.#waiting.size;
  }

  #arm(at: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#armedAt = at;
    const delay = Math.min(LONGEST_DELAY_MS, Math.max(0, at - performance.now()));
    this.#timer = setTimeout(() => this.#tick(), delay);
    this.#timer.unref?.();
  }

  #tick(): void {
    this.#timer = undefined;
    this.#armedAt = Number.POSITIVE_INFINITY;
    const now = performance.now();
    const due: Deadline[] = [];
    let next = Number.POSITIVE_INFINITY;
    for (const deadline of this.#waiting) {
      if (deadline.at <= now) due.push(deadline);
      else if (deadline.at < next) next = deadline.at;
    }
    for (const deadline of due) this.#waiting.delete(deadline);
    if (next !== Number.POSITIVE_INFINITY) this.#arm(next);
    let failure: { error: unknown } | undefined;
    for (const deadline of due) {
      try {
        deadline.expire();
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure !== undefined) throw failure.error;
  }
}

/** The gateway's own: one {@link DeadlineClock} for the process. */
export const realCallTimer: CallTimer = new DeadlineClock();
