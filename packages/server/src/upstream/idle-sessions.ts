/** Idle 2025 sessions kept per credential, and how long one may sit unused. */
const MAX_IDLE_PER_KEY = 16;
const IDLE_MS = 60_000;

/** What the pool keeps: a session bound to one credential (`key`), closed once it is done with. */
export interface PooledSession {
  readonly key: string;
  closed: boolean;
  idleSince: number;
}

/**
 * The idle 2025 sessions of one upstream, by credential: a call takes one of its credential's, or
 * opens another, and gives it back when done (a 2025 session serves one call at a time). At most
 * 16 are kept per credential and `maxKeys` credentials (the least recently pooled go first), and
 * none longer than a minute unused; whatever is let go is closed with `close`.
 */
export class IdleSessions<S extends PooledSession> {
  readonly #idle = new Map<string, S[]>();
  readonly #maxKeys: number;
  readonly #close: (session: S) => Promise<void>;
  #sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(options: { maxKeys: number; close: (session: S) => Promise<void> }) {
    this.#maxKeys = options.maxKeys;
    this.#close = options.close;
  }

  /** An open idle session of `key`, now the caller's; undefined when there is none. */
  take(key: string): S | undefined {
    const idle = this.#idle.get(key);
    let session = idle?.pop();
    while (session?.closed === true) session = idle?.pop();
    return session;
  }

  /** Keeps `session` for the next call of its credential, or closes it when there is no room. */
  give(session: S): void {
    let idle = this.#idle.get(session.key);
    if (idle === undefined) {
      idle = [];
      this.#idle.set(session.key, idle);
      this.#evictKeys();
    }
    if (idle.length >= MAX_IDLE_PER_KEY) {
      void this.#close(session);
      return;
    }
    session.idleSince = Date.now();
    idle.push(session);
    this.#sweeper ??= setInterval(() => this.#sweep(), IDLE_MS / 2);
    this.#sweeper.unref();
  }

  /** Closes every idle session now (they are known dead); the pool keeps sessions again after. */
  drop(): void {
    const all = [...this.#idle.values()].flat();
    this.#idle.clear();
    for (const session of all) void this.#close(session);
  }

  /** Closes every idle session, and the pool keeps none from now on. */
  async closeAll(): Promise<void> {
    clearInterval(this.#sweeper);
    this.#sweeper = undefined;
    const all = [...this.#idle.values()].flat();
    this.#idle.clear();
    await Promise.all(all.map((session) => this.#close(session)));
  }

  #evictKeys(): void {
    while (this.#idle.size > this.#maxKeys) {
      const oldest = this.#idle.keys().next();
      if (oldest.done === true) return;
      for (const session of this.#idle.get(oldest.value) ?? []) void this.#close(session);
      this.#idle.delete(oldest.value);
    }
  }

  #sweep(): void {
    const before = Date.now() - IDLE_MS;
    for (const [key, idle] of this.#idle) {
      const keep = idle.filter((session) => session.idleSince > before && !session.closed);
      for (const session of idle) if (!keep.includes(session)) void this.#close(session);
      if (keep.length === 0) this.#idle.delete(key);
      else this.#idle.set(key, keep);
    }
    if (this.#idle.size === 0) {
      clearInterval(this.#sweeper);
      this.#sweeper = undefined;
    }
  }
}
