import type { CallTimer } from '../../src/mcp/index.js';

interface Armed {
  expire: () => void;
  ms: number;
}

/**
 * A call time limit the test runs (`GatewayInternals.callTimer`): a call's limit is armed when it
 * starts and cleared when it ends, and expires only when the test says, so a test of what the
 * limit does never waits it out, and a call that ends by itself is known not to have met it.
 *
 * @example
 * const timer = new ManualCallTimer();
 * const gw = await startMcpGateway({ internals: { callTimer: timer } });
 * const call = client.callTool({ name: 'up.hang', arguments: {} });
 * await expect.poll(() => timer.armed).toEqual([60_000]);
 * timer.expireAll();
 */
export class ManualCallTimer implements CallTimer {
  readonly #armed = new Set<Armed>();

  set(expire: () => void, ms: number): unknown {
    const armed = { expire, ms };
    this.#armed.add(armed);
    return armed;
  }

  clear(handle: unknown): void {
    this.#armed.delete(handle as Armed);
  }

  /** The time left on each limit still armed (the calls running, not paused, not ended). */
  get armed(): number[] {
    return [...this.#armed].map((armed) => armed.ms);
  }

  /** Expires every limit armed now, as if each call had run its time out. */
  expireAll(): void {
    const due = [...this.#armed];
    this.#armed.clear();
    for (const armed of due) armed.expire();
  }
}
