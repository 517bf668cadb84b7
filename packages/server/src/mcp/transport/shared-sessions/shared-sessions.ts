import type { LoggingLevel } from '@modelcontextprotocol/server';
import type { GatewayDatabase } from '../../../db/index.js';
import type { NotifyListenerLogger } from '../../../db/notify-listener.js';
import type { UpstreamNotice } from '../../../upstream/notice.js';
import { localLogLevel, type SessionLogLevel } from '../create-server.js';
import type { AnswerRouting } from './answer-routing.js';
import { DatabaseEventStore, EventIds } from './database-event-store.js';
import { followStream } from './followed-stream.js';
import { type BusMessage, SessionBus, type ToolsChange } from './session-bus.js';
import {
  deleteSession,
  expireSessions,
  forgetOldEvents,
  loadSession,
  type Reservation,
  reserveSession,
  type StoredSession,
  storeLogLevel,
  touchSessions,
} from './session-rows.js';
import { type SessionDb, sessionDb } from './tables.js';

/** How long a stream's events stay replayable, and a relayed message stays readable. */
const EVENT_RETENTION_MS = 15 * 60_000;

/** Options of {@link SharedSessions}. */
export interface SharedSessionsOptions {
  database: GatewayDatabase;
  /** The PostgreSQL URL, for the listening connection. */
  url: string;
  logger: NotifyListenerLogger;
  /** A session unused this long is closed. Its last use is written at most every tenth of it. */
  idleMs: number;
}

/**
 * The 2025 sessions of every instance, in PostgreSQL: the rows a session is rebuilt from, its
 * events, and the bus the instances tell each other about it on. Used by `LegacySessions` on
 * PostgreSQL only; on SQLite sessions stay in the memory of the one instance.
 */
export class SharedSessions {
  readonly #db: SessionDb;
  readonly #bus: SessionBus;
  /** Ids for the events sessions' transports hold back (see `DatabaseEventStore`). */
  readonly #eventIds: EventIds;
  readonly #logger: NotifyListenerLogger;
  readonly #touchEveryMs: number;
  readonly #idleMs: number;
  /** When this instance last wrote each session's last use. */
  readonly #written = new Map<string, number>();
  #onMessage: (message: BusMessage, fromSelf: boolean) => void = () => {};
  #onNotice: (sourceId: string, notice: UpstreamNotice, sessions: readonly string[]) => void =
    () => {};
  #onTools: (change: ToolsChange) => void = () => {};

  constructor(options: SharedSessionsOptions) {
    this.#db = sessionDb(options.database);
    this.#eventIds = new EventIds(this.#db);
    this.#logger = options.logger;
    this.#idleMs = options.idleMs;
    this.#touchEveryMs = Math.min(60_000, options.idleMs / 10);
    this.#bus = new SessionBus({
      db: this.#db,
      url: options.url,
      logger: options.logger,
      onMessage: (message, fromSelf) => {
        if (message.kind === 'notice') {
          this.#onNotice(message.sourceId, message.notice, message.sessions ?? []);
        } else this.#onMessage(message, fromSelf);
        if (message.kind === 'tools') this.#onTools(message.change);
      },
    });
  }

  /** This instance's name on the bus. */
  get instance(): string {
    return this.#bus.instance;
  }

  /** Who hears what the other instances say, once this one listens ({@link ensureListening}). */
  onMessage(handler: (message: BusMessage, fromSelf: boolean) => void): void {
    this.#onMessage = handler;
  }

  /** Who hears upstreams' notices told by any instance ({@link notice}), its own included. */
  onNotice(
    handler: (sourceId: string, notice: UpstreamNotice, sessions: readonly string[]) => void,
  ): void {
    this.#onNotice = handler;
  }

  /**
   * Who hears, besides the sessions, the tool changes told by any instance ({@link toolsChanged}),
   * its own included: the 2026-07-28 listen streams.
   */
  onTools(handler: (change: ToolsChange) => void): void {
    this.#onTools = handler;
  }

  /**
   * Tells every instance, this one included, what upstream source `sourceId` said; with a resource
   * update, the `sessions` that subscribed to it here.
   */
  notice(
    sourceId: string,
    notice: UpstreamNotice,
    sessions: readonly string[] = [],
  ): Promise<void> {
    return this.#bus.publish({
      kind: 'notice',
      sourceId,
      notice,
      ...(sessions.length > 0 ? { sessions: [...sessions] } : {}),
    });
  }

  /**
   * Listens to the other instances, unless listening already (again after a lost connection).
   * An instance listens once it holds a session: until then nothing said concerns it.
   */
  ensureListening(): Promise<void> {
    return this.#bus.ensure();
  }

  /**
   * Stores a new session of `session.owner` in the database, making room at `maxPerOwner` by
   * evicting the owner's least recently used sessions that are not `busy`; says which went, or
   * that none could.
   */
  reserve(
    session: { id: string; owner: string; initParams: unknown },
    maxPerOwner: number,
    busy: (id: string) => boolean,
  ): Promise<Reservation> {
    this.#written.set(session.id, Date.now());
    return reserveSession(this.#db, { ...session, now: new Date() }, maxPerOwner, busy);
  }

  /** The stored session `id` (to rebuild a copy here), if it is still open. */
  load(id: string): Promise<StoredSession | undefined> {
    return loadSession(this.#db, id);
  }

  /** Notes a use of session `id`; the database hears of it at most every tenth of the idle time. */
  seen(id: string): void {
    const now = Date.now();
    if (now - (this.#written.get(id) ?? 0) < this.#touchEveryMs) return;
    this.#written.set(id, now);
    touchSessions(this.#db, [id], new Date(now)).catch((error: unknown) => this.#warn(error));
  }

  /** Closes session `id` on every instance (`DELETE`); false when it was closed already. */
  async close(id: string): Promise<boolean> {
    this.#written.delete(id);
    const existed = await deleteSession(this.#db, id);
    await this.#bus.publish({ kind: 'closed', sessionId: id });
    return existed;
  }

  /** Tells every instance the sessions `ids` are gone (evicted in {@link reserve}). */
  async announceClosed(ids: readonly string[]): Promise<void> {
    for (const id of ids) {
      this.#written.delete(id);
      await this.#bus.publish({ kind: 'closed', sessionId: id });
    }
  }

  /** Stores the log level of session `id` and tells the other holders. */
  async setLogLevel(id: string, level: string): Promise<void> {
    await storeLogLevel(this.#db, id, level);
    await this.#bus.publish({ kind: 'level', sessionId: id, level });
  }

  /** Tells every instance the tools of the principals `change` selects changed. */
  toolsChanged(change: ToolsChange): void {
    this.#bus.publish({ kind: 'tools', change }).catch((error: unknown) => this.#warn(error));
  }

  /**
   * The answer to `request` when it resumes (`Last-Event-ID`) the stream of a tool call of session
   * `id` that another instance runs: what that instance stores, followed in the database for at
   * most `forMs`. Undefined for everything the session's transport answers itself (its own
   * streams, the GET stream, an unknown or malformed id).
   */
  async follow(id: string, request: Request, forMs: number): Promise<Response | undefined> {
    const lastEventId = request.headers.get('last-event-id');
    if (lastEventId === null) return undefined;
    if (!request.headers.get('accept')?.includes('text/event-stream')) return undefined;
    const events = this.eventStore(id, false);
    const streamId = await events.foreignCallStream(lastEventId);
    if (streamId === undefined) return undefined;
    return followStream({ events, sessionId: id, streamId, after: lastEventId, forMs });
  }

  /**
   * The log level of session `id`, starting at `initial`: kept in its row and told to the other
   * instances holding it when the client sets it; they take it over with `follow`.
   */
  levelOf(id: string, initial?: LoggingLevel): SessionLogLevel {
    const local = localLogLevel(initial);
    return {
      get: local.get,
      set: async (level) => {
        local.set(level);
        await this.setLogLevel(id, level);
      },
      follow: local.set,
    };
  }

  /**
   * The event store of session `id`; muted while the session is being rebuilt. `held`: for a
   * session's transport, whose call streams' events are held until shown (`DatabaseEventStore`);
   * the session layer must then tell it how each POST's answer went out.
   */
  eventStore(id: string, muted: boolean, held = false): DatabaseEventStore {
    return new DatabaseEventStore(this.#db, id, {
      instance: this.#bus.instance,
      muted,
      ...(held ? { ids: this.#eventIds } : {}),
    });
  }

  /** How a transport of session `id` reaches the other instances. */
  routing(id: string): AnswerRouting {
    return {
      instance: this.#bus.instance,
      forward: (to, message) => {
        this.#bus
          .publish({ kind: 'answer', to, sessionId: id, message })
          .catch((error: unknown) => this.#warn(error));
      },
      share: (message) => {
        this.#bus
          .publish({ kind: 'notify', sessionId: id, message })
          .catch((error: unknown) => this.#warn(error));
      },
    };
  }

  /**
   * Keeps the sessions `busy` on this instance alive, closes every session unused for the idle
   * time on every instance, and forgets old events. Any instance may run it; it is idempotent.
   */
  async sweep(busy: readonly string[]): Promise<void> {
    const now = Date.now();
    await touchSessions(this.#db, busy, new Date(now));
    for (const id of busy) this.#written.set(id, now);
    const expired = await expireSessions(this.#db, new Date(now - this.#idleMs));
    await this.announceClosed(expired);
    await forgetOldEvents(this.#db, new Date(now - EVENT_RETENTION_MS));
  }

  /** Forgets what this instance noted of session `id` (its copy here is gone). */
  forget(id: string): void {
    this.#written.delete(id);
  }

  /** Stops listening for other instances' news (the gateway is stopping). */
  async stop(): Promise<void> {
    await this.#bus.close();
  }

  #warn(error: unknown): void {
    this.#logger.warn('MCP shared session update failed', {
      error: error instanceof Error ? error.message : String(error),
    });
  }
}

export type { BusMessage, ToolsChange } from './session-bus.js';
