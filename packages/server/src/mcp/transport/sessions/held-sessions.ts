import type { SharedSessions } from '../shared-sessions/index.js';
import type { Session } from './session.js';
import { SessionOwners } from './session-owners.js';

/**
 * The sessions this instance holds, in order of last use, and grouped by the principal that owns
 * them (see {@link SessionOwners}). On PostgreSQL the shared sessions hear of each use (the
 * database's last use) and each removal (the copy here is gone). Nothing here closes a session:
 * whoever removes one closes it (`closeSession`). Never throws.
 *
 * @example
 * const held = new HeldSessions(options.shared);
 * held.add(session);
 * held.used(session);
 */
export class HeldSessions {
  readonly #shared: Pick<SharedSessions, 'seen' | 'forget'> | undefined;
  /** In order of last use, oldest first (a Map keeps insertion order). */
  readonly #sessions = new Map<string, Session>();
  readonly #owners = new SessionOwners<Session>();
  /**
   * The most recently used session, when known: using it again changes no order (nor its
   * owner's, which follows the same order), so its use moves nothing (issue 37: one client's
   * session is used call after call).
   */
  #newest: Session | undefined;

  constructor(shared: Pick<SharedSessions, 'seen' | 'forget'> | undefined) {
    this.#shared = shared;
  }

  /** How many sessions are held. */
  get size(): number {
    return this.#sessions.size;
  }

  /** The session `id`, when held. */
  get(id: string): Session | undefined {
    return this.#sessions.get(id);
  }

  /** Whether session `id` is held. */
  has(id: string): boolean {
    return this.#sessions.has(id);
  }

  /** The held sessions, least recently used first. */
  values(): IterableIterator<Session> {
    return this.#sessions.values();
  }

  /** Holds `session`, as the most recently used. */
  add(session: Session): void {
    // A session of an id held already keeps that one's place: which one is newest is not known.
    this.#newest = this.#sessions.has(session.id) ? undefined : session;
    this.#sessions.set(session.id, session);
    this.#owners.add(session);
  }

  /** Marks `session` as used now, the most recently used of all and of its owner's. */
  used(session: Session): void {
    session.lastSeen = Date.now();
    if (session !== this.#newest) {
      this.#sessions.delete(session.id);
      this.#sessions.set(session.id, session);
      this.#owners.touch(session);
      this.#newest = session;
    }
    this.#shared?.seen(session.id);
  }

  /** Stops holding `session` (it is not closed here). */
  remove(session: Session): void {
    this.#sessions.delete(session.id);
    this.#owners.remove(session);
    if (this.#newest === session) this.#newest = undefined;
    this.#shared?.forget(session.id);
  }

  /** How many sessions `owner` holds here. */
  count(owner: string): number {
    return this.#owners.count(owner);
  }

  /** The least recently used session of `owner` with no request in flight. */
  leastRecentlyUsedIdle(owner: string): Session | undefined {
    return this.#owners.leastRecentlyUsedIdle(owner);
  }

  /** The least recently used idle session of the largest holder (see {@link SessionOwners}). */
  idleOfLargestHolder(): Session | undefined {
    return this.#owners.idleOfLargestHolder();
  }
}
