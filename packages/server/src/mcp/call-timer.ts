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
  /** Which was set first of two with the same `at`: they expire in the order they were set. */
  order: number;
  expire: () => void;
  /** Its place in the clock's heap; -1 once expired or cleared. */
  index: number;
}

const earlier = (a: Deadline, b: Deadline) => a.at < b.at || (a.at === b.at && a.order < b.order);

/**
 * The time limits of every running call, kept by one timer set for the earliest of them. A
 * `setTimeout` of each call's own cost the call a `Timeout`, its insertion in Node's timer lists
 * and, with one call at a time, a new list and a new libuv timer on every call, then its removal
 * when the call ended, all before the call's answer (bench/mcp/README.md, issue 37). Here a
 * limit is an entry in a binary heap ordered by expiry: a tick takes out only the limits that are
 * due, however many calls are running, and a cleared one leaves the heap at once, so it holds
 * only running calls. Calls share one limit (`GATEWAY_TOOL_TIMEOUT_MS`), so a new one is almost
 * never the earliest: it stays at the heap's bottom and the timer is left as it is; one ended
 * early leaves the timer to fire at its time, which then takes what is due and sets itself for
 * the next. Keeps nothing alive. Every limit that is due is called, earliest first, though one
 * throws; then the first error is thrown (from the timer, as a `setTimeout` of its own would
 * have). A limit past setTimeout's longest delay (~24.8 days) is waited for in steps of it.
 *
 * @example
 * const clock = new DeadlineClock();
 * const handle = clock.set(() => stop(), 60_000);
 * clock.clear(handle); // the call ended first
 */
export class DeadlineClock implements CallTimer {
  /** A binary min-heap by {@link earlier}: each entry's children are at 2i+1 and 2i+2. */
  readonly #heap: Deadline[] = [];
  #order = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The deadline the timer is set for; infinite when none is. */
  #armedAt = Number.POSITIVE_INFINITY;

  set(expire: () => void, ms: number): Deadline {
    const deadline: Deadline = {
      at: performance.now() + ms,
      order: this.#order++,
      expire,
      index: this.#heap.length,
    };
    this.#heap.push(deadline);
    this.#siftUp(deadline);
    if (deadline.at < this.#armedAt) this.#arm(deadline.at);
    return deadline;
  }

  clear(handle: unknown): void {
    const index = (handle as Partial<Deadline> | null | undefined)?.index;
    // Expired, cleared before, or another clock's: nothing to do.
    if (index === undefined || index < 0 || this.#heap[index] !== handle) return;
    this.#removeAt(index);
  }

  /** How many limits have neither expired nor been cleared. */
  get size(): number {
    return this.#heap.length;
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
    const heap = this.#heap;
    const due: Deadline[] = [];
    while (heap.length > 0 && (heap[0] as Deadline).at <= now) {
      due.push(heap[0] as Deadline);
      this.#removeAt(0);
    }
    if (heap.length > 0) this.#arm((heap[0] as Deadline).at);
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

  /** Takes the entry at `index` out, the last entry taking its place. */
  #removeAt(index: number): void {
    const heap = this.#heap;
    const removed = heap[index] as Deadline;
    removed.index = -1;
    const last = heap.pop() as Deadline;
    if (last === removed) return;
    this.#place(last, index);
    if (index > 0 && earlier(last, heap[(index - 1) >> 1] as Deadline)) this.#siftUp(last);
    else this.#siftDown(last);
  }

  #siftUp(deadline: Deadline): void {
    const heap = this.#heap;
    let index = deadline.index;
    while (index > 0) {
      const parentIndex = (index - 1) >> 1;
      const parent = heap[parentIndex] as Deadline;
      if (!earlier(deadline, parent)) break;
      this.#place(parent, index);
      index = parentIndex;
    }
    this.#place(deadline, index);
  }

  #siftDown(deadline: Deadline): void {
    const heap = this.#heap;
    const length = heap.length;
    let index = deadline.index;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= length) break;
      const right = left + 1;
      let child = heap[left] as Deadline;
      let childIndex = left;
      if (right < length && earlier(heap[right] as Deadline, child)) {
        child = heap[right] as Deadline;
        childIndex = right;
      }
      if (!earlier(child, deadline)) break;
      this.#place(child, index);
      index = childIndex;
    }
    this.#place(deadline, index);
  }

  #place(deadline: Deadline, index: number): void {
    this.#heap[index] = deadline;
    deadline.index = index;
  }
}

/** The gateway's own: one {@link DeadlineClock} for the process. */
export const realCallTimer: CallTimer = new DeadlineClock();
