import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';
import type { SessionDb } from './tables.js';

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
  #muted: boolean;

  constructor(db: SessionDb, sessionId: string, options: { muted?: boolean } = {}) {
    this.#db = db;
    this.#sessionId = sessionId;
    this.#muted = options.muted ?? false;
  }

  /** Starts storing events (the rebuilt session is ready). */
  unmute(): void {
    this.#muted = false;
  }

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    if (this.#muted) return '0';
    const row = await this.#db
      .insertInto('mcp_session_events')
      .values({
        session_id: this.#sessionId,
        stream_id: streamId,
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

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const streamId = await this.getStreamIdForEventId(lastEventId);
    const after = sequenceOf(lastEventId);
    if (streamId === undefined || after === undefined) {
      throw new Error('Unknown or expired Last-Event-ID');
    }
    const rows = await this.#db
      .selectFrom('mcp_session_events')
      .select(['id', 'message'])
      .where('session_id', '=', this.#sessionId)
      .where('stream_id', '=', streamId)
      .where('id', '>', after)
      .orderBy('id', 'asc')
      .limit(MAX_REPLAY)
      .execute();
    for (const row of rows) {
      const message: JSONRPCMessage = JSON.parse(row.message);
      // The priming event (an empty message) only marks a place to resume from.
      if (Object.keys(message).length === 0) continue;
      await send(String(row.id), message);
    }
    return streamId;
  }
}

/** The sequence number an event id names, or undefined when it names none. */
function sequenceOf(eventId: string): string | undefined {
  return /^[1-9][0-9]{0,17}$/.test(eventId) ? eventId : undefined;
}
