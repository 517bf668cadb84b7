import { createHash } from 'node:crypto';
import { type Connection, closeQuietly, type Era } from './connection.js';
import { IdleSessions } from './idle-sessions.js';

/** Credentials (users) with pooled sessions or clients at once; the least recently used go first. */
const MAX_KEYS = 500;

/** What {@link Connections} are made with. */
export interface ConnectionsOptions {
  /** The upstream is a process the gateway started: one connection, started again when it exits. */
  stdio: boolean;
  /** The revision the HTTP upstream spoke at its last connect, when known. */
  era: () => Era | undefined;
  /** Opens an HTTP connection bound to `credential` (`key` is its pool key). */
  connect: (
    key: string,
    credential: string | undefined,
    signal: AbortSignal | undefined,
  ) => Promise<Connection>;
  /** Starts the stdio upstream's process. */
  start: () => Promise<Connection>;
  /** Starting the stdio upstream's process failed with `error`. */
  onStartFailure: (error: unknown) => void;
}

/**
 * The connections of one upstream, and which one serves a call: the stdio upstream's one process;
 * for an HTTP upstream, the credential's 2026-07-28 client (one per credential, serving every
 * call at once; the least recently used closed past 500 credentials), else an idle 2025 session of
 * the credential ({@link IdleSessions}), else a new connection.
 */
export class Connections {
  readonly #options: ConnectionsOptions;
  readonly #idle = new IdleSessions<Connection>({ maxKeys: MAX_KEYS, close: closeQuietly });
  /** 2026-07-28 clients, one per credential. */
  readonly #modern = new Map<string, Promise<Connection>>();
  /**
   * The 2026-07-28 client each of {@link #modern}'s promises opened, once it has: a call finds it
   * without awaiting the promise again (issue 37: three promises and turns a call).
   */
  readonly #opened = new WeakMap<Promise<Connection>, Connection>();
  #shared: Promise<Connection> | undefined;
  /**
   * 2026-07-28 clients marked closed while calls still hold them: given to no new call, closed when
   * the last lets go, or when these connections are.
   */
  readonly #draining = new Set<Connection>();
  #closed = false;

  constructor(options: ConnectionsOptions) {
    this.#options = options;
  }

  /**
   * The stdio upstream's process, started again when it exited.
   *
   * @throws whatever starting it throws (also reported to `onStartFailure`).
   */
  stdio(): Promise<Connection> {
    const current = this.#shared;
    if (current !== undefined) {
      return current.then((connection) => {
        if (!connection.closed) return connection;
        // Calls waiting on the same exited process restart it once.
        if (this.#shared !== current) return this.stdio();
        // The old process is stopped and reaped whatever state it is in, never left behind.
        void closeQuietly(connection);
        return this.#restart();
      });
    }
    return this.#restart();
  }

  /**
   * A connection of an HTTP upstream for a call with `credential`, the caller's until
   * {@link checkin}: at once when it is the credential's open 2026-07-28 client.
   *
   * @throws whatever connecting throws; the caller judges it.
   */
  checkout(
    credential: string | undefined,
    signal: AbortSignal | undefined,
  ): Connection | Promise<Connection> {
    return (
      this.open(credential) ??
      this.#checkout(credential === undefined ? '' : keyOf(credential), credential, signal)
    );
  }

  /**
   * The credential's open 2026-07-28 client, the caller's until {@link checkin}, if there is one
   * now: what {@link checkout} gives at once, without a wait to give up (issue 37).
   */
  open(credential: string | undefined): Connection | undefined {
    const key = credential === undefined ? '' : keyOf(credential);
    const modern = this.#modern.get(key);
    const opened = modern === undefined ? undefined : this.#opened.get(modern);
    if (
      modern === undefined ||
      opened?.closed !== false ||
      this.#options.era()?.kind === 'legacy'
    ) {
      return undefined;
    }
    // Most recently used last: the oldest go first when there are too many.
    this.#modern.delete(key);
    this.#modern.set(key, modern);
    return lend(opened);
  }

  async #checkout(
    key: string,
    credential: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Connection> {
    if (this.#options.era()?.kind !== 'legacy') {
      const modern = this.#modern.get(key);
      if (modern !== undefined) {
        const connection = await modern.catch(() => undefined);
        // A 2025 session found by a concurrent first call serves that call alone: this one
        // gets a session of its own below.
        if (connection?.modern === true && !connection.closed) {
          // Most recently used last: the oldest go first when there are too many.
          this.#modern.delete(key);
          this.#modern.set(key, modern);
          return lend(connection);
        }
        if (this.#modern.get(key) === modern) this.#modern.delete(key);
      }
    }
    const idle = this.#idle.take(key);
    if (idle !== undefined) {
      idle.kept = true;
      return lend(idle);
    }
    const connecting = this.#options.connect(key, credential, signal);
    if (this.#options.era()?.kind !== 'legacy') {
      // Concurrent first calls with one credential share one 2026-07-28 client; a 2025 session
      // is handed to this call alone, so only a modern one stays in the map.
      const shared: Promise<Connection> = connecting.then((opened) => {
        if (opened.modern) this.#opened.set(shared, opened);
        else if (this.#modern.get(key) === shared) this.#modern.delete(key);
        return opened;
      });
      this.#modern.set(key, shared);
      this.#evictModern();
      shared.catch(() => {
        if (this.#modern.get(key) === shared) this.#modern.delete(key);
      });
      return lend(await shared);
    }
    return lend(await connecting);
  }

  /**
   * Takes back a connection a call is done with: a 2025 session is kept for the next call of its
   * credential (closed instead when it is closed, or these connections are); a 2026-07-28 client
   * stays shared, and is closed only when it is marked closed and no other call holds it.
   */
  checkin(connection: Connection): void {
    if (this.#options.stdio) {
      if (connection.closed) void closeQuietly(connection);
      return;
    }
    connection.inUse -= 1;
    if (connection.modern) {
      if (connection.closed) this.#retire(connection);
      return;
    }
    if (connection.closed || this.#closed) {
      void closeQuietly(connection);
      return;
    }
    this.#idle.give(connection);
  }

  /**
   * Closes every idle 2025 session: the upstream forgot one (it restarted), so it forgot them all,
   * and the next calls open new ones instead of each finding a dead one first.
   */
  dropIdle(): void {
    this.#idle.drop();
  }

  /** Closes every connection (and stops a stdio upstream's process); none is kept from now on. */
  async close(): Promise<void> {
    this.#closed = true;
    const idle = this.#idle.closeAll();
    const modern = [...this.#modern.values()];
    this.#modern.clear();
    const shared = this.#shared;
    this.#shared = undefined;
    const draining = [...this.#draining];
    this.#draining.clear();
    await Promise.all(draining.map(closeQuietly));
    await idle;
    await Promise.all(modern.map((connection) => connection.then(closeQuietly, () => {})));
    if (shared !== undefined) await shared.then(closeQuietly, () => {});
  }

  #evictModern(): void {
    while (this.#modern.size > MAX_KEYS) {
      const oldest = this.#modern.entries().next();
      if (oldest.done === true) return;
      const [key, connection] = oldest.value;
      this.#modern.delete(key);
      void connection.then(
        (opened) => this.#retire(opened),
        () => {},
      );
    }
  }

  /**
   * Closes a 2026-07-28 client no call is to be given any more, once no call holds it: closing
   * its transport would end the calls in flight on it (other users' among them) with the abort,
   * as "failed", though nothing went wrong with them.
   */
  #retire(connection: Connection): void {
    connection.closed = true;
    // Only a shared 2026-07-28 client drains; a 2025 session evicted while it connected closes now.
    if (connection.modern && connection.inUse > 0 && !this.#closed) {
      this.#draining.add(connection);
      return;
    }
    this.#draining.delete(connection);
    void closeQuietly(connection);
  }

  #restart(): Promise<Connection> {
    const started = this.#options.start();
    this.#shared = started;
    started.catch((error: unknown) => {
      if (this.#shared === started) this.#shared = undefined;
      this.#options.onStartFailure(error);
    });
    return started;
  }
}

/** `connection`, now held by one more call (given back through {@link Connections.checkin}). */
function lend(connection: Connection): Connection {
  connection.inUse += 1;
  return connection;
}

function keyOf(credential: string): string {
  return createHash('sha256').update(credential).digest('base64url');
}
