import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';
import type { SessionDb } from './tables.js';

/** The SDK transport's name for the stream of a session's GET (server-initiated messages). */
const STANDALONE_STREAM = '_GET_stream';
/** The most events one reconnect replays: a client that missed more starts over. */
const MAX_REPLAY = 500;

/**
 * The SSE events of one 2025 session in the database, so a client whose stream dropped can
 * reconnect with `Last-Event-ID` to any instance and receive what it missed. An event id is the
 * row's sequence number, looked up only within this session: another session's ids are unknown
 * here. Events go with their session and after a retention time (the sweep).
 *
 * Muted while a session is rebuilt on another instance: replaying its `initialize` must leave no
 * event behind.
 */
export class DatabaseEventStore implements EventStore {
  readonly #db: SessionDb;
  readonly #sessionId: string;
  readonly #instance: string;
  #muted: boolean;
  #stored: Promise<unknown> = Promise.resolve();

  /** `instance`: the bus name of the instance storing events, recorded with each. */
  constructor(db: SessionDb, sessionId: string, options: { instance: string; muted?: boolean }) {
    this.#db = db;
    this.#sessionId = sessionId;
    this.#instance = options.instance;
    this.#muted = options.muted ?? false;
  }

  /** Starts storing events (the rebuilt session is ready). */
  unmute(): void {
    this.#muted = false;
  }

  storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    if (this.#muted) return Promise.resolve('0');
    // One after another: the transport writes each message once it is stored, and two inserts
    // racing on two pooled connections could finish out of order (a log line after the result
    // that closed its stream would be lost).
    const stored = this.#stored.then(() => this.#insert(streamId, message));
    this.#stored = stored.catch(() => {});
    return stored;
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

/** The sequence number an event id names, or undefined when it names none. */
function sequenceOf(eventId: string): string | undefined {
  return /^[1-9][0-9]{0,17}$/.test(eventId) ? eventId : undefined;
}
