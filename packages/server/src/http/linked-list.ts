/** An item of a {@link LinkedList}: its neighbours, while it is in one. */
export interface Linked<T> {
  previous: T | undefined;
  next: T | undefined;
}

/**
 * A list linked through its items, for what is added and taken off once per call (exchanges and
 * calls in flight): no `Set`, whose table V8 shrinks on the `delete` that empties it and makes
 * again on the next `add`, nor a node made per item (issue 37). An item is in one list at a time.
 *
 * @example
 * const list = new LinkedList<Item>();
 * list.add(item);
 * list.all(); // [item]
 * list.delete(item);
 */
export class LinkedList<T extends Linked<T>> {
  #first: T | undefined;
  #size = 0;

  /** How many items it holds. */
  get size(): number {
    return this.#size;
  }

  /** Adds `one`, which is in no list. */
  add(one: T): void {
    one.next = this.#first;
    if (this.#first !== undefined) this.#first.previous = one;
    this.#first = one;
    this.#size += 1;
  }

  /** Takes `one` off the list; it must be on it (an item is taken off once, when it settles). */
  delete(one: T): void {
    const { previous, next } = one;
    if (previous === undefined) this.#first = next;
    else previous.next = next;
    if (next !== undefined) next.previous = previous;
    one.previous = undefined;
    one.next = undefined;
    this.#size -= 1;
  }

  /** Its items, newest first, as an array: each may be stopped, and leave the list, after. */
  all(): T[] {
    const all: T[] = [];
    for (let one = this.#first; one !== undefined; one = one.next) all.push(one);
    return all;
  }
}
