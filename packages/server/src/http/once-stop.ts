const noop = () => {};

/**
 * A stop that happens once, with a reason: a client leaving (the Node adapter's request), a call
 * the gateway answers itself stopped by its client or by the gateway stopping (`DirectCalls`,
 * `SessionCalls`), a running tool call stopped by its time limit or its client, or ended
 * (`RunningCall`). Listeners hear it without an `AbortSignal`; the signal, for what needs one, is
 * made only when read (most calls never do), already aborted with the reason when read after the
 * stop. An `AbortController` per request and per call, with listeners added and removed around
 * each call, cost a call more than the rest of its stop (bench/mcp/README.md, issue 37).
 *
 * A listener that throws does not keep the next from hearing, nor escapes into what stopped it
 * (a timer, a socket's close): its error goes to `listenerFailed`; without one, the first such
 * error is thrown by `stop` once every listener has heard.
 *
 * @example
 * const stop = new OnceStop();
 * const stopListening = stop.onStop((reason) => console.log('stopped', reason));
 * stop.stop('the client left'); // logs, once; stop.signal.aborted === true
 */
export class OnceStop {
  #stopped = false;
  /** Stopped by {@link OnceStop.end}: its listeners were not told, and are not. */
  #silent = false;
  #reason: unknown;
  #controller: AbortController | undefined;
  #listeners: ((reason: unknown) => void)[] | undefined;
  /** Rejects {@link OnceStop.untilStopped}'s promise, while one waits. */
  #waiting: ((reason: unknown) => void) | undefined;
  /** Those of the promises waiting at the same time as `#waiting`'s (rare: a call waits once). */
  #alsoWaiting: ((reason: unknown) => void)[] | undefined;
  readonly #listenerFailed: ((error: unknown) => void) | undefined;

  /** `listenerFailed` hears what a listener threw (see above). */
  constructor(listenerFailed?: (error: unknown) => void) {
    this.#listenerFailed = listenerFailed;
  }

  /** Whether it stopped (or ended). */
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

  /**
   * Stops, once: the signal aborts, `untilStopped` rejects and every listener hears `reason`.
   * Throws what a listener threw when there is no `listenerFailed` to hear it.
   */
  stop(reason: unknown): void {
    const listeners = this.#halt(reason);
    if (listeners === undefined) return;
    const listenerFailed = this.#listenerFailed;
    let failed = false;
    let failure: unknown;
    for (const listener of listeners) {
      try {
        listener(reason);
      } catch (error) {
        if (listenerFailed !== undefined) listenerFailed(error);
        else if (!failed) {
          failed = true;
          failure = error;
        }
      }
    }
    if (failed) throw failure;
  }

  /**
   * Ends, once, without telling the listeners (the work they watch is over, not stopped): the
   * signal aborts with `reason` and `untilStopped` rejects with it, for whatever still holds them.
   */
  end(reason: unknown): void {
    if (this.#stopped) return;
    this.#silent = true;
    this.#halt(reason);
  }

  /** Marks the stop and aborts what waits; the listeners to tell, if it had not stopped. */
  #halt(reason: unknown): ((reason: unknown) => void)[] | undefined {
    if (this.#stopped) return undefined;
    this.#stopped = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
    const waiting = this.#waiting;
    if (waiting !== undefined) {
      this.#waiting = undefined;
      waiting(reason);
    }
    const alsoWaiting = this.#alsoWaiting;
    if (alsoWaiting !== undefined) {
      this.#alsoWaiting = undefined;
      for (const waiter of alsoWaiting) waiter(reason);
    }
    const listeners = this.#listeners;
    this.#listeners = undefined;
    return this.#silent ? undefined : listeners;
  }

  /**
   * Tells `listener` once when this stops (at once if it has, unless it ended: what `listener`
   * throws then goes to `listenerFailed`, or to the caller); answers the function that stops
   * listening.
   */
  onStop(listener: (reason: unknown) => void): () => void {
    if (this.#stopped) {
      if (this.#silent) return noop;
      const listenerFailed = this.#listenerFailed;
      if (listenerFailed === undefined) listener(this.#reason);
      else {
        try {
          listener(this.#reason);
        } catch (error) {
          listenerFailed(error);
        }
      }
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

  /**
   * `work`, or a rejection with the reason this stopped, if it stops (or ends) first; any number
   * at a time. Work that ignores the stop keeps running; its late outcome must not go unhandled.
   */
  untilStopped<T>(work: Promise<T>): Promise<T> {
    work.catch(noop);
    if (this.#stopped) return Promise.reject(this.#reason);
    return new Promise<T>((resolve, reject) => {
      if (this.#waiting === undefined) this.#waiting = reject;
      else if (this.#alsoWaiting === undefined) this.#alsoWaiting = [reject];
      else this.#alsoWaiting.push(reject);
      work.then(
        (value) => {
          this.#stopWaiting(reject);
          resolve(value);
        },
        (error: unknown) => {
          this.#stopWaiting(reject);
          reject(error);
        },
      );
    });
  }

  /** Forgets a waiter whose work settled first. */
  #stopWaiting(waiter: (reason: unknown) => void): void {
    if (this.#waiting === waiter) {
      this.#waiting = undefined;
      return;
    }
    const also = this.#alsoWaiting;
    const at = also?.indexOf(waiter) ?? -1;
    if (at >= 0) also?.splice(at, 1);
  }
}
