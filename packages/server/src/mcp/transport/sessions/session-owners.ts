/** What {@link SessionOwners} needs of a session. */
export interface OwnedSession {
  id: string;
  /** The principal's key (`principalKey`). */
  owner: string;
  /** Requests of the session being answered now; 0 means idle. */
  inFlight: number;
}

/**
 * The open sessions grouped by the principal that owns them, each group in order of last use
 * (oldest first), and the principals ranked by how many they hold. Every operation a request
 * makes (add, touch, remove) is O(1): the ranking is a map from count to principals, with the
 * highest count kept up to date, so finding the largest holder never scans.
 *
 * @example
 * const owners = new SessionOwners<Session>();
 * owners.add(session);
 * const victim = owners.leastRecentlyUsedIdle(session.owner);
 */
export class SessionOwners<S extends OwnedSession> {
  /** Per principal, its sessions by id, oldest use first (a Map keeps insertion order). */
  readonly #owners = new Map<string, Map<string, S>>();
  /** Principals by how many sessions they hold. */
  readonly #byCount = new Map<number, Set<string>>();
  #maxCount = 0;

  /** How many sessions `owner` holds. */
  count(owner: string): number {
    return this.#owners.get(owner)?.size ?? 0;
  }

  /** Counts `session` among its owner's, as the most recently used. */
  add(session: S): void {
    let sessions = this.#owners.get(session.owner);
    if (sessions === undefined) {
      sessions = new Map();
      this.#owners.set(session.owner, sessions);
    }
    const before = sessions.size;
    sessions.set(session.id, session);
    if (sessions.size !== before) this.#rank(session.owner, before, sessions.size);
  }

  /** Marks `session` as the most recently used of its owner's. */
  touch(session: S): void {
    const sessions = this.#owners.get(session.owner);
    if (sessions === undefined || !sessions.delete(session.id)) return;
    sessions.set(session.id, session);
  }

  /** Stops counting `session` (closed or evicted); nothing for one not held. */
  remove(session: S): void {
    const sessions = this.#owners.get(session.owner);
    if (sessions === undefined || !sessions.delete(session.id)) return;
    if (sessions.size === 0) this.#owners.delete(session.owner);
    this.#rank(session.owner, sessions.size + 1, sessions.size);
  }

  /** The least recently used session of `owner` with no request in flight: O(its sessions). */
  leastRecentlyUsedIdle(owner: string): S | undefined {
    for (const session of this.#owners.get(owner)?.values() ?? []) {
      if (session.inFlight === 0) return session;
    }
    return undefined;
  }

  /**
   * The least recently used idle session of the principal holding the most sessions; when all of
   * theirs are busy, of the next largest holder, and so on. Undefined when every session is busy.
   */
  idleOfLargestHolder(): S | undefined {
    for (let count = this.#maxCount; count > 0; count -= 1) {
      for (const owner of this.#byCount.get(count) ?? []) {
        const idle = this.leastRecentlyUsedIdle(owner);
        if (idle !== undefined) return idle;
      }
    }
    return undefined;
  }

  #rank(owner: string, from: number, to: number): void {
    if (from > 0) {
      const bucket = this.#byCount.get(from);
      bucket?.delete(owner);
      if (bucket?.size === 0) this.#byCount.delete(from);
    }
    if (to > 0) {
      let bucket = this.#byCount.get(to);
      if (bucket === undefined) {
        bucket = new Set();
        this.#byCount.set(to, bucket);
      }
      bucket.add(owner);
    }
    if (to > this.#maxCount) this.#maxCount = to;
    // Counts move by one, so when the top bucket empties the next one down holds this owner.
    else if (from === this.#maxCount && !this.#byCount.has(from)) this.#maxCount = to;
  }
}
