const noop = () => {};

/**
 * A stop that happens once, with a reason: a client leaving (the Node adapter's request), a call
 * the gateway answers itself stopped by its client or by the gateway stopping (`DirectCalls`).
 * Listeners hear it without an `AbortSignal`; the signal, for what needs one, is made only when
 * read (most calls never do), already aborted with the reason when read after the stop. An
 * `AbortController` per request and per call, with listeners added and removed around each call,
 * cost a call more than the rest of its stop (bench/mcp/README.md, issue 37).
 *
 * @example
 * const stop = new OnceStop();
 * const stopListening = stop.onStop((reason) => console.log('stopped', reason));
 * stop.stop('the client left'); // logs, once; stop.signal.aborted === true
 */
export class OnceStop {
  #stopped = false;
  #reason: unknown;
  #controller: AbortController | undefined;
  #listeners: ((reason: unknown) => void)[] | undefined;

  /** Whether it stopped. */
  get stopped(): boolean {
    return this.#stopped;
  }

  /** Aborted, with the reason, once stopped. */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#stopped) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** Stops, once: the signal aborts and every listener hears `reason`. */
  stop(reason: unknown): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
    const listeners = this.#listeners;
    this.#listeners = undefined;
    if (listeners === undefined) return;
    for (const listener of listeners) listener(reason);
  }

  /**
   * Tells `listener` once when this stops (at once if it has); answers the function that stops
   * listening.
   */
  onStop(listener: (reason: unknown) => void): () => void {
    if (this.#stopped) {
      listener(this.#reason);
      return noop;
    }
    const listeners = this.#listeners;
    if (listeners === undefined) this.#listeners = [listener];
    else listeners.push(listener);
    return () => {
      const current = this.#listeners;
      const at = current?.indexOf(listener) ?? -1;
      if (at >= 0) current?.splice(at, 1);
    };
  }
}
