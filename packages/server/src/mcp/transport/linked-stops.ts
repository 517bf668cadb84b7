import { LinkedList } from '../../http/linked-list.js';
import { OnceStop } from '../../http/once-stop.js';

/** A call's {@link OnceStop}, with its neighbours in a {@link LinkedStops} list while it is in it. */
export class LinkedStop extends OnceStop {
  previous: LinkedStop | undefined = undefined;
  next: LinkedStop | undefined = undefined;
}

/**
 * The stops of the calls in flight, as a list through the stops themselves ({@link LinkedList}):
 * a call is added and taken off without a `Set`, and every stop in it is reached to stop them all.
 *
 * @example
 * const running = new LinkedStops();
 * const stop = new LinkedStop();
 * running.add(stop);
 * running.stopAll(new Error('stopping')); // stop.stopped === true
 * running.delete(stop);
 */
export class LinkedStops extends LinkedList<LinkedStop> {
  /** Stops every stop on the list with `reason`; they stay on it until each call takes its own off. */
  stopAll(reason: Error): void {
    for (const one of this.all()) one.stop(reason);
  }
}
