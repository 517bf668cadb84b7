import type { Server, ServerEvent, ServerEventBus } from '@modelcontextprotocol/server';
import type { FederatedSource } from '../../upstream/federation.js';
import { namespacedUri, splitUri } from '../../upstream/namespaced-names.js';
import type { UpstreamNotice } from '../../upstream/notice.js';
import { META_TOOLS } from '../discovery/index.js';
import { visibleSources } from '../federation/visible-sources.js';
import { type McpPrincipal, subjectId } from '../principal.js';
import { type McpRuntime, toolsOf } from '../runtime.js';
import { affectedBy } from './sessions/tools-change.js';
import type { ToolsChange } from './shared-sessions/index.js';

/** One open 2026-07-28 `subscriptions/listen` stream. */
interface Stream {
  principal: McpPrincipal;
  /** The SDK's listen router's writer for this stream (it filters by the stream's own filter). */
  listener: (event: ServerEvent) => void;
  /** Namespaced URIs subscribed at their upstream for this stream: the source and its URI. */
  uris: Map<string, { sourceId: string; uri: string }>;
  closed: boolean;
}

/** A listen request about to be served: whose it is, and the resources it asks to watch. */
interface Expected {
  principal: McpPrincipal;
  uris: readonly string[];
}

/**
 * The 2026-07-28 `subscriptions/listen` streams of this instance, told apart by caller. The SDK's
 * handler serves the streams (acknowledgement, subscription ids, keep-alive, teardown) and takes
 * their events from a {@link ServerEventBus}; this is that bus. Each stream hears:
 * - `tools/list_changed` only when the tools its caller is served changed (a catalog change is
 *   compared with what the caller was served when the stream opened or last heard one; a role,
 *   assignment or endpoint change goes to the callers it may concern, as on 2025 sessions);
 * - an upstream's resources or prompts `list_changed` only when its caller sees that source;
 * - `notifications/resources/updated` for the resources in its filter that were subscribed at
 *   their upstream, with the caller's credential, when the stream opened (unsubscribed when the
 *   last stream or 2025 session here watching one ends).
 *
 * The SDK's router calls `subscribe` with nothing but a writer. Which request the stream is, the
 * factory knows: it {@link arm}s the server it built for a listen request, and the SDK reads that
 * server's capabilities and then subscribes in one synchronous step (createMcpHandler, 2.4), so
 * the subscription takes what the armed server expected. A subscription that finds nothing
 * expected hears nothing (fails closed).
 */
export class ListenStreams implements ServerEventBus {
  readonly #runtime: McpRuntime;
  readonly #streams = new Set<Stream>();
  /** The fingerprint of the tool list each stream's caller was last served. */
  readonly #served = new WeakMap<Stream, string>();
  /** Whether a 2025 session here still watches a namespaced URI. */
  readonly #watchedElsewhere: (uri: string) => boolean;
  #expected: Expected | undefined;

  constructor(runtime: McpRuntime, watchedElsewhere: (uri: string) => boolean) {
    this.#runtime = runtime;
    this.#watchedElsewhere = watchedElsewhere;
  }

  /** How many streams are open here. */
  get size(): number {
    return this.#streams.size;
  }

  /**
   * Marks `server`, built for a `subscriptions/listen` request of `principal` asking to watch
   * `uris`, so that the stream the SDK opens next is theirs (see the class).
   */
  arm(server: Server, principal: McpPrincipal, uris: readonly string[]): void {
    const capabilities = server.getCapabilities.bind(server);
    server.getCapabilities = () => {
      const expected = { principal, uris };
      this.#expected = expected;
      // Taken in this same step, or by nobody (the SDK opens no stream for an empty filter).
      queueMicrotask(() => {
        if (this.#expected === expected) this.#expected = undefined;
      });
      return capabilities();
    };
  }

  subscribe(listener: (event: ServerEvent) => void): () => void {
    const expected = this.#expected;
    this.#expected = undefined;
    if (expected === undefined) return () => {};
    const stream: Stream = {
      principal: expected.principal,
      listener,
      uris: new Map(),
      closed: false,
    };
    this.#streams.add(stream);
    void this.#rememberServed(stream);
    if (expected.uris.length > 0) void this.#watch(stream, expected.uris);
    return () => {
      if (stream.closed) return;
      stream.closed = true;
      this.#streams.delete(stream);
      void this.#unwatch(stream);
    };
  }

  /** Tells every stream (the SDK's `notify`; the gateway tells streams apart instead). */
  publish(event: ServerEvent): void {
    for (const stream of this.#streams) stream.listener(event);
  }

  /** Tells the streams whose caller's tools `change` changed. Never throws. */
  toolsChanged(change: ToolsChange): void {
    const affected = affectedBy(change);
    for (const stream of this.#streams) {
      if (!affected(stream.principal)) continue;
      if (change.kind !== 'catalog') {
        stream.listener({ kind: 'tools_list_changed' });
        continue;
      }
      void this.#servedChanged(stream).then((changed) => {
        if (changed && !stream.closed) stream.listener({ kind: 'tools_list_changed' });
      });
    }
  }

  /** Passes an upstream's `notice` of `source` to the streams it concerns. Never throws. */
  async heard(source: FederatedSource, notice: UpstreamNotice): Promise<void> {
    if (notice.kind === 'resource_updated') {
      const uri = namespacedUri(source.namespace, notice.uri);
      for (const stream of this.#streams) {
        if (stream.uris.has(uri)) stream.listener({ kind: 'resource_updated', uri });
      }
      return;
    }
    const kind =
      notice.kind === 'resources_changed' ? 'resources_list_changed' : 'prompts_list_changed';
    for (const stream of [...this.#streams]) {
      const sees = await visibleSources(this.#runtime, stream.principal).then(
        (sources) => sources.some((visible) => visible.id === source.id),
        () => false,
      );
      if (sees && !stream.closed) stream.listener({ kind });
    }
  }

  /** Whether a stream here watches the namespaced `uri`. */
  watches(uri: string): boolean {
    for (const stream of this.#streams) if (stream.uris.has(uri)) return true;
    return false;
  }

  async #currentTools(stream: Stream): Promise<string> {
    const { index, mode } = await toolsOf(this.#runtime, stream.principal);
    return JSON.stringify(mode === 'discovery' ? META_TOOLS : index.list);
  }

  async #rememberServed(stream: Stream): Promise<void> {
    try {
      const now = await this.#currentTools(stream);
      if (!this.#served.has(stream)) this.#served.set(stream, now);
    } catch {
      // Unknown: the next catalog change is told.
    }
  }

  /** Whether the caller's tools differ from those last seen; when they do, these are kept. */
  async #servedChanged(stream: Stream): Promise<boolean> {
    const before = this.#served.get(stream);
    let now: string;
    try {
      now = await this.#currentTools(stream);
    } catch {
      return true;
    }
    this.#served.set(stream, now);
    return before === undefined || before !== now;
  }

  /**
   * Subscribes at their upstream to those of `uris` the caller may watch: a source they see that
   * offers subscriptions. Others are never told of (as an unknown resource). Logged, never thrown.
   */
  async #watch(stream: Stream, uris: readonly string[]): Promise<void> {
    const { upstreams, logger } = this.#runtime.services;
    const sources = await visibleSources(this.#runtime, stream.principal).catch(() => []);
    for (const uri of new Set(uris)) {
      const split = splitUri(uri);
      const source = split && sources.find((one) => one.namespace === split.namespace);
      if (split === undefined || source?.offers.resources?.subscribe !== true) continue;
      try {
        await upstreams.forward(source.id, subjectId(stream.principal), 'resources/subscribe', {
          uri: split.name,
        });
        if (stream.closed) {
          await this.#unsubscribe(source.id, stream.principal, uri, split.name);
          return;
        }
        stream.uris.set(uri, { sourceId: source.id, uri: split.name });
      } catch (error) {
        logger.info('resource subscription not relayed', {
          sourceId: source.id,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
  }

  async #unwatch(stream: Stream): Promise<void> {
    for (const [uri, at] of stream.uris) {
      await this.#unsubscribe(at.sourceId, stream.principal, uri, at.uri);
    }
  }

  /** Unsubscribes `uri` at its upstream unless a stream or session here still watches it. */
  async #unsubscribe(
    sourceId: string,
    principal: McpPrincipal,
    uri: string,
    original: string,
  ): Promise<void> {
    if (this.watches(uri) || this.#watchedElsewhere(uri)) return;
    await this.#runtime.services.upstreams
      .forward(sourceId, subjectId(principal), 'resources/unsubscribe', { uri: original })
      .catch(() => {});
  }
}
