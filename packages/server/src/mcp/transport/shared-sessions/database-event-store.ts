import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';
import { sql } from 'kysely';
import type { SessionDb } from './tables.js';

/** The SDK transport's name for the stream of a session's GET (server-initiated messages). */
const STANDALONE_STREAM = '_GET_stream';
/** The most events one reconnect replays: a client that missed more starts over. */
const MAX_REPLAY = 500;

/** How many event ids {@link EventIds} takes from the sequence at a time. */
const ID_BLOCK = 128;
/** The most call streams a session holds events of before they are all stored anyway. */
const MAX_HELD_STREAMS = 64;

/**
 * Event ids taken from `mcp_session_events`' own sequence a block at a time, so an event can be
 * given its id before its row is written (see {@link DatabaseEventStore}). Handed out in order;
 * one per instance. An id a row never uses is a gap in the sequence, which nothing reads.
 */
export class EventIds {
  readonly #db: SessionDb;
  #ids: string[] = [];
  #next = 0;
  #refill: Promise<void> | undefined;

  constructor(db: SessionDb) {
    this.#db = db;
  }

  /** The next id. Rejects when the database does. */
  async next(): Promise<string> {
    while (this.#next >= this.#ids.length) {
      this.#refill ??= this.#take().finally(() => {
        this.#refill = undefined;
      });
      await this.#refill;
    }
    const id = this.#ids[this.#next] as string;
    this.#next += 1;
    return id;
  }

  async #take(): Promise<void> {
    const { rows } = await sql<{
      id: string;
    }>`select nextval(pg_get_serial_sequence('mcp_session_events', 'id'))::text as id from generate_series(1, ${ID_BLOCK})`.execute(
      this.#db,
    );
    this.#ids = rows.map((row) => row.id).sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
    this.#next = 0;
  }
}

/** An event held back, with the id it was given. */
interface HeldEvent {
  id: string;
  streamId: string;
  message: JSONRPCMessage;
}

/**
 * The SSE events of one 2025 session in the database, so a client whose stream dropped can
 * reconnect with `Last-Event-ID` to any instance and receive what it missed. An event id is the
 * row's sequence number, looked up only within this session: another session's ids are unknown
 * here. Events go with their session and after a retention time (the sweep).
 *
 * Given {@link EventIds}, the events of a tool call's stream (one that starts with a priming
 * event) are held in memory with ids taken from the sequence, until the session layer says how
 * the stream's answer went out (`whenGathered`): as one JSON body ({@link answeredAlone}), which
 * shows the client no event id, so nothing of it is ever written; or as a stream, whose ids the
 * client may resume from ({@link shown}): written before a byte of it leaves, and its later
 * events as they come. An ordinary call thus writes no event row (two round trips a call fewer).
 * Events of the standalone GET stream are always written at once.
 *
 * Muted while a session is rebuilt on another instance: replaying its `initialize` must leave no
 * event behind.
 */
export class DatabaseEventStore implements EventStore {
  readonly #db: SessionDb;
  readonly #sessionId: string;
  readonly #instance: string;
  readonly #ids: EventIds | undefined;
  /** The events of call streams whose answer has not gone out yet, by stream, in order. */
  readonly #held = new Map<string, HeldEvent[]>();
  #muted: boolean;
  #stored: Promise<unknown> = Promise.resolve();

  /**
   * `instance`: the bus name of the instance storing events, recorded with each; `ids`: call
   * streams' events are held until shown (see above).
   */
  constructor(
    db: SessionDb,
    sessionId: string,
    options: { instance: string; muted?: boolean; ids?: EventIds },
  ) {
    this.#db = db;
    this.#sessionId = sessionId;
    this.#instance = options.instance;
    this.#muted = options.muted ?? false;
    this.#ids = options.ids;
  }

  /**
   * The answer to request `requestId` went out as one JSON body: the call stream holding that
   * answer showed the client no event id, so its events are forgotten.
   */
  answeredAlone(requestIds: readonly (string | number)[]): void {
    for (const [streamId, events] of this.#held) {
      if (events.some((event) => answers(event.message, requestIds))) this.#held.delete(streamId);
    }
  }

  /**
   * A POST's answer goes out as an event stream, whose ids the client may resume from: every
   * held event is written (resolves once they are), and those streams' later events as they
   * come. Rejects when the database does.
   */
  shown(): Promise<void> {
    if (this.#held.size === 0) return this.#stored.then(() => {});
    const events = [...this.#held.values()].flat();
    this.#held.clear();
    const stored = this.#stored.then(() => this.#insertHeld(events));
    this.#stored = stored.catch(() => {});
    return stored;
  }

  /** Starts storing events (the rebuilt session is ready). */
  unmute(): void {
    this.#muted = false;
  }

  storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    if (this.#muted) return Promise.resolve('0');
    const ids = this.#ids;
    if (ids !== undefined && streamId !== STANDALONE_STREAM) {
      const held = this.#held.get(streamId);
      // A call stream starts with its priming event (an empty message).
      if (held !== undefined || Object.keys(message).length === 0) {
        return this.#hold(ids, streamId, message, held);
      }
    }
    return this.#storeNow(streamId, message);
  }

  #storeNow(streamId: string, message: JSONRPCMessage): Promise<string> {
    // One after another: the transport writes each message once it is stored, and two inserts
    // racing on two pooled connections could finish out of order (a log line after the result
    // that closed its stream would be lost).
    const stored = this.#stored.then(() => this.#insert(streamId, message));
    this.#stored = stored.catch(() => {});
    return stored;
  }

  async #hold(
    ids: EventIds,
    streamId: string,
    message: JSONRPCMessage,
    held: HeldEvent[] | undefined,
  ): Promise<string> {
    let events = held;
    if (events === undefined) {
      if (this.#held.size >= MAX_HELD_STREAMS) await this.shown();
      events = [];
      this.#held.set(streamId, events);
    }
    const id = await ids.next();
    // Shown meanwhile (written already): this event is written as the stream's later ones are.
    if (this.#held.get(streamId) !== events) return this.#storeNow(streamId, message);
    events.push({ id, streamId, message });
    return id;
  }

  async #insertHeld(events: readonly HeldEvent[]): Promise<void> {
    const createdAt = new Date().toISOString();
    await this.#db
      .insertInto('mcp_session_events')
      .values(
        events.map((event) => ({
          id: event.id,
          session_id: this.#sessionId,
          stream_id: event.streamId,
          instance: this.#instance,
          message: JSON.stringify(event.message),
          created_at: createdAt,
        })),
      )
      .execute();
  }

  async #insert(streamId: string, message: JSONRPCMessage): Promise<string> {
    const row = await this.#db
      .insertInto('mcp_session_events')
      .values({
        session_id: this.#sessionId,
        stream_id: streamId,
        instance: this.#instance,
        message: JSON.stringify(message),
        created_at: new Date().toISOString(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return String(row.id);
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    const id = sequenceOf(eventId);
    if (id === undefined) return undefined;
    const row = await this.#db
      .selectFrom('mcp_session_events')
      .select('stream_id')
      .where('session_id', '=', this.#sessionId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row?.stream_id;
  }

  /**
   * The stream event `eventId` belongs to when another instance sent it on a tool call's stream:
   * that instance holds the stream, so this one can only follow what it stores.
   */
  async foreignCallStream(eventId: string): Promise<string | undefined> {
    const id = sequenceOf(eventId);
    if (id === undefined) return undefined;
    const row = await this.#db
      .selectFrom('mcp_session_events')
      .select(['stream_id', 'instance'])
      .where('session_id', '=', this.#sessionId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (row === undefined || row.instance === this.#instance) return undefined;
    return row.stream_id === STANDALONE_STREAM ? undefined : row.stream_id;
  }

  /** The events of stream `streamId` after event `after`, oldest first, priming events left out. */
  async eventsAfter(
    streamId: string,
    after: string,
  ): Promise<{ id: string; message: JSONRPCMessage }[]> {
    const from = sequenceOf(after);
    if (from === undefined) return [];
    const rows = await this.#db
      .selectFrom('mcp_session_events')
      .select(['id', 'message'])
      .where('session_id', '=', this.#sessionId)
      .where('stream_id', '=', streamId)
      .where('id', '>', from)
      .orderBy('id', 'asc')
      .limit(MAX_REPLAY)
      .execute();
    return (
      rows
        .map((row) => ({ id: String(row.id), message: JSON.parse(row.message) as JSONRPCMessage }))
        // The priming event (an empty message) only marks a place to resume from.
        .filter((event) => Object.keys(event.message).length > 0)
    );
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const streamId = await this.getStreamIdForEventId(lastEventId);
    const after = sequenceOf(lastEventId);
    if (streamId === undefined || after === undefined) {
      throw new Error('Unknown or expired Last-Event-ID');
    }
    for (const event of await this.eventsAfter(streamId, lastEventId)) {
      await send(event.id, event.message);
    }
    return streamId;
  }
}

/** Whether `message` answers one of the requests `requestIds`. */
function answers(message: JSONRPCMessage, requestIds: readonly (string | number)[]): boolean {
  return (
    'id' in message &&
    ('result' in message || 'error' in message) &&
    requestIds.includes(message.id as string | number)
  );
}

/** The sequence number an event id names, or undefined when it names none. */
function sequenceOf(eventId: string): string | undefined {
  return /^[1-9][0-9]{0,17}$/.test(eventId) ? eventId : undefined;
}
