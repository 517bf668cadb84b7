import { OnceStop } from '../../http/once-stop.js';

/** A call's {@link OnceStop}, with its neighbours in a {@link LinkedStops} list while it is in it. */
export class LinkedStop extends OnceStop {
  previous: LinkedStop | undefined = undefined;
  next: LinkedStop | undefined = undefined;
}

/**
 * The stops of the calls in flight, as a list through the stops themselves: a call is added and
 * taken off without a `Set`'s hashing or a node made per call (issue 37), and every stop in it is
 * reached to stop them all.
 *
 * @example
 * const running = new LinkedStops();
 * const stop = new LinkedStop();
 * running.add(stop);
 * running.stopAll(new Error('stopping')); // stop.stopped === true
 * running.delete(stop);
 */
export class LinkedStops {
  #first: LinkedStop | undefined;

  /** Adds `one`, which is in no list. */
  add(one: LinkedStop): void {
    one.next = this.#first;
    if (this.#first !== undefined) this.#first.previous = one;
    this.#first = one;
  }

  /** Takes `one` off the list; it must be on it (a call is taken off once, when it settles). */
  delete(one: LinkedStop): void {
    const { previous, next } = one;
    if (previous === undefined) this.#first = next;
    else previous.next = next;
    if (next !== undefined) next.previous = previous;
    one.previous = undefined;
    one.next = undefined;
  }

  /** Stops every stop on the list with `reason`; they stay on it until each call takes its own off. */
  stopAll(reason: Error): void {
    const all: LinkedStop[] = [];
    for (let one = this.#first; one !== undefined; one = one.next) all.push(one);
    for (const one of all) one.stop(reason);
  }
}
