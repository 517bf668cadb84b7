import type { Tool as McpTool, Server } from '@modelcontextprotocol/server';

/**
 * What each 2025 session's client was last served by `tools/list`, so a catalog change (an
 * upstream's tool list refreshed, a source added or removed, a plugin reloaded) is announced
 * (`notifications/tools/list_changed`) only to the sessions whose served tools it changed. A
 * session whose client never listed here (a copy on another instance, on PostgreSQL) is told, as
 * before.
 */
export class ServedTools {
  /** The fingerprint of the list a session's server last served, by that server. */
  readonly #served = new WeakMap<Server, string>();
  /** Fingerprints of the shared, frozen lists `ToolIndexCache` hands out. */
  readonly #fingerprints = new WeakMap<readonly McpTool[], string>();

  /** `server` answered `tools/list` with `list`. */
  remember(server: Server, list: readonly McpTool[]): void {
    this.#served.set(server, this.#fingerprint(list));
  }

  /**
   * Whether what `server`'s session would be served now (`current`) differs from what it was
   * last served; when it does, that becomes what it was served (it is told once). True when
   * nothing was served yet, or `current` rejects (the session is told rather than missed).
   */
  async changed(server: Server, current: () => Promise<readonly McpTool[]>): Promise<boolean> {
    const before = this.#served.get(server);
    if (before === undefined) return true;
    let now: string;
    try {
      now = this.#fingerprint(await current());
    } catch {
      return true;
    }
    if (now === this.#served.get(server)) return false;
    this.#served.set(server, now);
    return true;
  }

  #fingerprint(list: readonly McpTool[]): string {
    let fingerprint = this.#fingerprints.get(list);
    if (fingerprint === undefined) {
      fingerprint = JSON.stringify(list);
      // Only shared lists are kept; a list made for one answer goes with it.
      if (Object.isFrozen(list)) this.#fingerprints.set(list, fingerprint);
    }
    return fingerprint;
  }
}
