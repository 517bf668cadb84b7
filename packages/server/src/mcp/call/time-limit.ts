import { type CallTimer, realCallTimer } from '../call-timer.js';

/**
 * A handler's time limit that stops while the user is being asked: waiting minutes for an
 * approval must not use up a tool's 60 seconds. Calls `onExpire` once when the running time
 * reaches `limitMs`.
 *
 * @example
 * const limit = new TimeLimit(60_000, () => controller.abort());
 * limit.pause(); await askUser(); limit.resume();
 */
export class TimeLimit {
  readonly #onExpire: () => void;
  readonly #timers: CallTimer;
  #remaining: number;
  #startedAt = 0;
  #timer: unknown;
  #paused = 0;
  #done = false;

  constructor(limitMs: number, onExpire: () => void, timers: CallTimer = realCallTimer) {
    this.#remaining = limitMs;
    this.#onExpire = onExpire;
    this.#timers = timers;
    this.#run();
  }

  /** Stops the clock (calls nest: the clock runs again when every pause is resumed). */
  pause(): void {
    if (this.#done) return;
    this.#paused += 1;
    if (this.#paused > 1 || this.#timer === undefined) return;
    this.#timers.clear(this.#timer);
    this.#timer = undefined;
    this.#remaining -= performance.now() - this.#startedAt;
  }

  /** Starts the clock again after {@link TimeLimit.pause}. */
  resume(): void {
    if (this.#done || this.#paused === 0) return;
    this.#paused -= 1;
    if (this.#paused === 0) this.#run();
  }

  /** Stops for good, without calling `onExpire`. */
  clear(): void {
    this.#done = true;
    if (this.#timer !== undefined) this.#timers.clear(this.#timer);
    this.#timer = undefined;
  }

  #run(): void {
    this.#startedAt = performance.now();
    this.#timer = this.#timers.set(
      () => {
        this.#done = true;
        this.#timer = undefined;
        this.#onExpire();
      },
      Math.max(0, this.#remaining),
    );
  }
}
