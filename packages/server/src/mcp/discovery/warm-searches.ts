import { type McpPrincipal, principalKey } from '../principal.js';

/** Discovery callers remembered; past it, the one unseen longest is forgotten. */
const MAX_REMEMBERED = 200;
/** A burst of changes (a plugin set registered one by one) is built for once, this long after. */
const SETTLE_MS = 50;

/**
 * Builds again, in the background, the search indexes of the discovery endpoints in use when what
 * they serve may have changed (a tool registered or removed, a role or an endpoint's tools edited),
 * so the first `gateway.search_tools` after a change finds its index built instead of building it
 * inside the call (~100 ms at 10,000 tools). It remembers the callers that came through a
 * discovery endpoint ({@link remember}) and, once changes settle ({@link changed}), resolves each
 * one's tools again exactly as its next request would, with `warm`: nothing is built for a caller
 * that is not the caller's own, and a caller whose endpoint is no longer a discovery one (or who
 * cannot be resolved: deleted) is forgotten.
 */
export class SearchWarmer {
  readonly #callers = new Map<string, McpPrincipal>();
  /** Resolves `principal`'s tools and builds its search index; false when not in discovery mode. */
  readonly #warm: (principal: McpPrincipal) => Promise<boolean>;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running: Promise<void> = Promise.resolve();
  #stopped = false;

  constructor(warm: (principal: McpPrincipal) => Promise<boolean>) {
    this.#warm = warm;
  }

  /** `principal` was served through a discovery endpoint. */
  remember(principal: McpPrincipal): void {
    const endpoint = principal.kind === 'user' ? (principal.endpointId ?? '') : '';
    const key = `${principalKey(principal)}/${endpoint}`;
    this.#callers.delete(key);
    this.#callers.set(key, principal);
    if (this.#callers.size > MAX_REMEMBERED) {
      const oldest = this.#callers.keys().next().value;
      if (oldest !== undefined) this.#callers.delete(oldest);
    }
  }

  /** What some callers are served may have changed: their indexes are built again soon. */
  changed(): void {
    if (this.#stopped || this.#callers.size === 0) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#running = this.#running.then(() => this.#warmAll());
    }, SETTLE_MS);
    this.#timer.unref?.();
  }

  /** Settles once no build is due or running (tests wait on it). */
  async idle(): Promise<void> {
    while (this.#timer !== undefined)
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    await this.#running;
  }

  /** Stops building (the gateway is stopping). */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  async #warmAll(): Promise<void> {
    for (const [key, principal] of [...this.#callers]) {
      if (this.#stopped) return;
      const still = await this.#warm(principal).catch(() => false);
      if (!still) this.#callers.delete(key);
      // One caller's index at a time, the requests served between them.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}
