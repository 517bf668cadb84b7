import type { Server } from '@modelcontextprotocol/server';
import type { FederatedSource } from '../../upstream/federation.js';
import { namespacedUri } from '../../upstream/namespaced-names.js';
import type { UpstreamNotice } from '../../upstream/notice.js';
import type { McpPrincipal } from '../principal.js';

interface Listening {
  principal: McpPrincipal;
  /** Namespaced URIs the session's client subscribed to (`resources/subscribe`). */
  uris: Set<string>;
  /** The session's id, once it subscribed to something. */
  sessionId?: string | undefined;
}

/**
 * What this instance's 2025 sessions hear of upstreams' resources and prompts: a session's server
 * is {@link add}ed when it opens and {@link remove}d when it closes; an upstream's notice then
 * reaches the sessions it concerns ({@link heard}): a list change those whose caller sees the
 * source, a resource update those that subscribed to that resource.
 */
export class SessionNotices {
  readonly #sessions = new Map<Server, Listening>();

  /** `server` serves a session of `principal`. */
  add(server: Server, principal: McpPrincipal): void {
    this.#sessions.set(server, { principal, uris: new Set() });
  }

  /** `server`'s session closed. */
  remove(server: Server): void {
    this.#sessions.delete(server);
  }

  /** `server`'s session (`sessionId`) subscribed to the namespaced `uri` here. */
  subscribe(server: Server, uri: string, sessionId?: string): void {
    const listening = this.#sessions.get(server);
    if (listening === undefined) return;
    listening.uris.add(uri);
    listening.sessionId ??= sessionId;
  }

  unsubscribe(server: Server, uri: string): void {
    this.#sessions.get(server)?.uris.delete(uri);
  }

  /**
   * The ids of the sessions that subscribed to the namespaced `uri` here: on PostgreSQL their
   * `GET` stream may be held by another instance, which is told these ids with the update.
   */
  subscribers(uri: string): string[] {
    const ids: string[] = [];
    for (const listening of this.#sessions.values()) {
      if (listening.sessionId !== undefined && listening.uris.has(uri))
        ids.push(listening.sessionId);
    }
    return ids;
  }

  /**
   * Sends the update of the namespaced `uri` on `server`, a copy held here of a session that
   * subscribed on another instance, unless this copy subscribed itself (it is told by
   * {@link heard}).
   */
  tellCopy(server: Server, uri: string): void {
    if (this.#sessions.get(server)?.uris.has(uri) === true) return;
    void server.sendResourceUpdated({ uri }).catch(() => {});
  }

  /** Whether a session here watches the namespaced `uri`. */
  watches(uri: string): boolean {
    for (const listening of this.#sessions.values()) if (listening.uris.has(uri)) return true;
    return false;
  }

  /**
   * Passes `notice` of `source` on to the sessions it concerns; `visible` says which sources a
   * principal sees (`visibleSources` of the runtime). Never throws.
   */
  async heard(
    visible: (principal: McpPrincipal) => Promise<readonly { id: string }[]>,
    source: FederatedSource,
    notice: UpstreamNotice,
  ): Promise<void> {
    if (notice.kind === 'resource_updated') {
      const uri = namespacedUri(source.namespace, notice.uri);
      for (const [server, listening] of this.#sessions) {
        if (listening.uris.has(uri)) void server.sendResourceUpdated({ uri }).catch(() => {});
      }
      return;
    }
    for (const [server, listening] of [...this.#sessions]) {
      let sees: boolean;
      try {
        sees = (await visible(listening.principal)).some((visible) => visible.id === source.id);
      } catch {
        continue;
      }
      if (!sees) continue;
      const capabilities = server.getCapabilities();
      const sent =
        notice.kind === 'resources_changed'
          ? capabilities?.resources?.listChanged === true && server.sendResourceListChanged()
          : capabilities?.prompts?.listChanged === true && server.sendPromptListChanged();
      if (sent !== false) void sent.catch(() => {});
    }
  }
}
