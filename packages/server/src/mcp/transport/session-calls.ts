import type { Transport } from '@modelcontextprotocol/server';
import type { OnceStop } from '../../http/once-stop.js';

/**
 * The `tools/call` requests of one 2025 session that the gateway answers without the session's
 * transport (mcp/session-call.ts), by JSON-RPC id, while they run. The SDK's server does not know
 * them, so what it would do for a request it runs is done here: a client's
 * `notifications/cancelled` for one stops it, and closing the session stops them all.
 */
export class SessionCalls {
  readonly #running = new Map<string | number, OnceStop>();

  /** Notes call `id` as running, stopped through `stop`; false when a call of that id runs. */
  add(id: string | number, stop: OnceStop): boolean {
    if (this.#running.has(id)) return false;
    this.#running.set(id, stop);
    return true;
  }

  /** Call `id`, stopped through `stop`, ended. */
  delete(id: string | number, stop: OnceStop): void {
    if (this.#running.get(id) === stop) this.#running.delete(id);
  }

  /** The client cancelled request `id` (a call's answer is then not sent, as the SDK does). */
  cancel(id: unknown, reason: unknown): void {
    if (typeof id !== 'string' && typeof id !== 'number') return;
    this.#running.get(id)?.stop(reason);
  }

  /** The session closed: every call stops. */
  stopAll(): void {
    for (const stop of this.#running.values()) stop.stop(new Error('The session was closed'));
    this.#running.clear();
  }
}

/**
 * Makes `calls` hear the client's `notifications/cancelled` that reach `transport`'s server,
 * whichever way they come (a POST, another instance's bus, an abandoned stream). Call it right
 * after the server connected, before anything else wraps the transport's `onmessage`.
 */
export function hearCancels(transport: Pick<Transport, 'onmessage'>, calls: SessionCalls): void {
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if ('method' in message && message.method === 'notifications/cancelled') {
      const params = message.params as { requestId?: unknown; reason?: unknown } | undefined;
      calls.cancel(params?.requestId, params?.reason ?? 'cancelled');
    }
    deliver?.call(transport, message, extra);
  };
}
