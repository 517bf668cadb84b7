import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import type { DatabaseEventStore } from './database-event-store.js';

/** Options of {@link followStream}. */
export interface FollowOptions {
  events: Pick<DatabaseEventStore, 'eventsAfter'>;
  sessionId: string;
  streamId: string;
  /** The `Last-Event-ID` the client sent. */
  after: string;
  /** How long to follow at most: past it the stream ends and the client may come back. */
  forMs: number;
  /** How often to look for new events. */
  pollMs?: number;
}

const KEEPALIVE_MS = 15_000;

/**
 * The SSE answer to a client resuming, on this instance, the stream of a tool call another
 * instance runs: what that instance stored after `after`, then what it stores next, read from the
 * database every `pollMs`, until the call's answer has been sent (a JSON-RPC result or error), the
 * client goes away, or `forMs` passes. Polling happens only while such a client is connected.
 */
export function followStream(options: FollowOptions): Response {
  const encoder = new TextEncoder();
  const pollMs = options.pollMs ?? 200;
  const deadline = Date.now() + options.forMs;
  let last = options.after;
  let lastWrite = Date.now();
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      while (!cancelled) {
        const events = await options.events.eventsAfter(options.streamId, last);
        if (cancelled) return;
        if (events.length > 0) {
          for (const event of events) {
            controller.enqueue(
              encoder.encode(
                `event: message\nid: ${event.id}\ndata: ${JSON.stringify(event.message)}\n\n`,
              ),
            );
            last = event.id;
            if (isAnswer(event.message)) {
              controller.close();
              return;
            }
          }
          lastWrite = Date.now();
          return;
        }
        if (Date.now() >= deadline) {
          controller.close();
          return;
        }
        if (Date.now() - lastWrite >= KEEPALIVE_MS) {
          controller.enqueue(encoder.encode(': keepalive\n\n'));
          lastWrite = Date.now();
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, pollMs));
      }
    },
    cancel() {
      cancelled = true;
    },
  });
  return new Response(body, {
    headers: {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
      'mcp-session-id': options.sessionId,
    },
  });
}

function isAnswer(message: JSONRPCMessage): boolean {
  return !('method' in message) && 'id' in message;
}
