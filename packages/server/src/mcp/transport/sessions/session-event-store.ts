import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';

interface StoredEvent {
  id: string;
  streamId: string;
  message: JSONRPCMessage;
}

/**
 * The recent SSE events of one 2025 session, so a client whose stream dropped can reconnect with
 * `Last-Event-ID` and receive what it missed. Bounded: only the last `limit` events are kept, and
 * the store lives and dies with its session (in memory, like the session itself).
 */
export class SessionEventStore implements EventStore {
  readonly #limit: number;
  readonly #events: StoredEvent[] = [];
  #next = 0;

  constructor(limit = 100) {
    this.#limit = limit;
  }

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    this.#next += 1;
    const id = `${streamId}.${this.#next}`;
    this.#events.push({ id, streamId, message });
    if (this.#events.length > this.#limit) this.#events.shift();
    return id;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.#events.find((event) => event.id === eventId)?.streamId;
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const index = this.#events.findIndex((event) => event.id === lastEventId);
    const last = this.#events[index];
    if (last === undefined) throw new Error('Unknown or expired Last-Event-ID');
    for (const event of this.#events.slice(index + 1)) {
      if (event.streamId === last.streamId) await send(event.id, event.message);
    }
    return last.streamId;
  }
}
