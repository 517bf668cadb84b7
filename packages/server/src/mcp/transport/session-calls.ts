import type { Transport } from '@modelcontextprotocol/server';
import type { OnceStop } from '../../http/once-stop.js';

/**
 * The `tools/call` requests of one 2025 session that the gateway answers without the session's
 * transport (mcp/session-call.ts), by JSON-RPC id, while they run. The SDK's server does not know
 * them, so what it would do for a request it runs is done here: a client's
 * `notifications/cancelled` for one stops it, and closing the session stops them all.
 *
 * A session's client mostly has one call running at a time, kept in a slot of its own; only the
 * calls running beside it go in a `Map`. A `Map` that one call at a time filled and emptied cost
 * every call V8's shrinking of its table on the `delete` that emptied it (~2 k instructions, a
 * new table allocated: bench/mcp/README.md, issue 37).
 */
export class SessionCalls {
  /** The id and stop of the call in the slot; `undefined` stop: the slot is free. */
  #id: string | number | undefined;
  #stop: OnceStop | undefined;
  /** The calls running beside the one in the slot, made when first needed. */
  #others: Map<string | number, OnceStop> | undefined;

  /** Notes call `id` as running, stopped through `stop`; false when a call of that id runs. */
  add(id: string | number, stop: OnceStop): boolean {
    if (this.#find(id) !== undefined) return false;
    if (this.#stop === undefined) {
      this.#id = id;
      this.#stop = stop;
    } else {
      this.#others ??= new Map();
      this.#others.set(id, stop);
    }
    return true;
  }

  /** Call `id`, stopped through `stop`, ended. */
  delete(id: string | number, stop: OnceStop): void {
    if (this.#stop === stop && this.#id === id) {
      this.#id = undefined;
      this.#stop = undefined;
    } else if (this.#others?.get(id) === stop) {
      this.#others.delete(id);
    }
  }

  /** The client cancelled request `id` (a call's answer is then not sent, as the SDK does). */
  cancel(id: unknown, reason: unknown): void {
    if (typeof id !== 'string' && typeof id !== 'number') return;
    this.#find(id)?.stop(reason);
  }

  /** The session closed: every call stops. */
  stopAll(): void {
    const stops = [
      ...(this.#stop === undefined ? [] : [this.#stop]),
      ...(this.#others?.values() ?? []),
    ];
    this.#id = undefined;
    this.#stop = undefined;
    this.#others = undefined;
    for (const stop of stops) stop.stop(new Error('The session was closed'));
  }

  /** The stop of running call `id`, if one runs. */
  #find(id: string | number): OnceStop | undefined {
    if (this.#stop !== undefined && this.#id === id) return this.#stop;
    return this.#others?.get(id);
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
