import type { ServerLogger } from '../../../http/logger.js';
import { sessionCapReached, tooManySessions } from '../session-http.js';
import type { HeldSessions } from './held-sessions.js';
import { closeSession, type Session } from './session.js';

/** Options of {@link Admission}. */
export interface AdmissionOptions {
  /** The most sessions kept at once, a memory guard; at it, the largest holder gives one up. */
  maxSessions: number;
  /** The most sessions one principal (a user, a service account) may hold. */
  maxSessionsPerUser: number;
  logger?: Pick<ServerLogger, 'info' | 'warn'>;
}

/**
 * Whether one more session fits on this instance, and room made for it: a principal at
 * `maxSessionsPerUser` gives up its own least recently used idle session, never anyone else's; at
 * `maxSessions`, the principal holding the most sessions here gives one up. Sessions being opened
 * count as held, so concurrent `initialize` requests cannot overshoot the caps. A refusal is an
 * HTTP 429 answer, not an error. On PostgreSQL the per-principal cap is counted in the database
 * (`SharedSessions.reserve`); only the overall cap is kept here.
 *
 * @example
 * const admission = new Admission(held, { maxSessions, maxSessionsPerUser, logger });
 * return admission.whileOpening(owner, async () => {
 *   return admission.makeRoom(owner, body) ?? (await open(request));
 * });
 */
export class Admission {
  readonly #held: HeldSessions;
  readonly #options: AdmissionOptions;
  /** `initialize` requests being answered, by principal: sessions about to exist. */
  readonly #opening = new Map<string, number>();
  #openingTotal = 0;

  constructor(held: HeldSessions, options: AdmissionOptions) {
    this.#held = held;
    this.#options = options;
  }

  /**
   * Runs `open`, the answer to an `initialize` of `owner`, counting the session it opens as about
   * to exist until it settles. Rejects when `open` does.
   */
  async whileOpening(owner: string, open: () => Promise<Response>): Promise<Response> {
    this.#opening.set(owner, (this.#opening.get(owner) ?? 0) + 1);
    this.#openingTotal += 1;
    try {
      return await open();
    } finally {
      this.#openingTotal -= 1;
      const left = (this.#opening.get(owner) ?? 1) - 1;
      if (left === 0) this.#opening.delete(owner);
      else this.#opening.set(owner, left);
    }
  }

  /**
   * Closes sessions so one more fits for `owner`: first their own least recently used idle one
   * when they are at their cap, then, at the overall cap, one of the largest holder's. A
   * 429 answer when nothing can go because every candidate has a request in flight.
   */
  makeRoom(owner: string, body: unknown): Response | undefined {
    const { maxSessionsPerUser } = this.#options;
    while (this.#held.count(owner) + (this.#opening.get(owner) ?? 0) > maxSessionsPerUser) {
      const victim = this.#held.leastRecentlyUsedIdle(owner);
      if (victim === undefined) {
        this.#options.logger?.warn('MCP session refused: every session of the principal is busy', {
          principal: owner,
          sessions: this.#held.count(owner),
        });
        return sessionCapReached(body, this.#held.count(owner), maxSessionsPerUser, true);
      }
      this.#evict(victim, 'per_user_cap');
    }
    return this.makeServerRoom(body);
  }

  /** At the overall cap, closes (on PostgreSQL: drops the copy of) the largest holder's session. */
  makeServerRoom(body: unknown): Response | undefined {
    const { maxSessions } = this.#options;
    while (this.#held.size + this.#openingTotal > maxSessions) {
      const victim = this.#held.idleOfLargestHolder();
      if (victim === undefined) {
        this.#options.logger?.warn('MCP session refused: the server is at its session cap', {
          sessions: this.#held.size,
        });
        return tooManySessions(
          body,
          `Too many MCP sessions on this server: all ${this.#held.size} have a request in flight. Retry when a call finishes.`,
        );
      }
      this.#evict(victim, 'server_cap');
    }
    return undefined;
  }

  /**
   * {@link makeServerRoom} for a copy of a stored session about to be rebuilt here (PostgreSQL),
   * counted as about to exist meanwhile. A 429 answer when every session here is busy.
   */
  makeRoomToRebuild(): Response | undefined {
    this.#openingTotal += 1;
    const refused = this.makeServerRoom(undefined);
    this.#openingTotal -= 1;
    return refused;
  }

  #evict(session: Session, reason: 'per_user_cap' | 'server_cap'): void {
    this.#options.logger?.info('MCP session closed to make room for a new one', {
      principal: session.owner,
      reason,
    });
    this.#held.remove(session);
    void closeSession(session);
  }
}
