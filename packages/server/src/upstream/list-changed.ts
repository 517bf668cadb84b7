import type { McpSubscription } from '@modelcontextprotocol/client';
import type { ServerLogger } from '../http/logger.js';
import { CONNECT_TIMEOUT_MS, type Connection, type Era } from './connection.js';
import { reasonOf } from './failure-reasons.js';
import type { UpstreamTarget } from './target.js';

/** A `subscriptions/listen` stream the upstream ended is opened again this many times. */
const MAX_RELISTENS = 3;

/** What a {@link ListChangedStream} is made with. */
export interface ListChangedStreamOptions {
  /** The registration id, for the log lines. */
  id: string;
  target: UpstreamTarget;
  logger: ServerLogger;
  /** The revision the upstream spoke at its last connect, when known. */
  era: () => Era | undefined;
  /** Runs `open` outside the call in progress: the stream is no call's. */
  outsideCall: <T>(open: () => T) => T;
}

/**
 * The 2026-07-28 stream on which an upstream says its tool (prompt, resource) list changed (`subscriptions/listen`;
 * the notifications it carries reach `onToolsChanged` through the client's relay). A 2025 upstream
 * says so on its sessions instead, with nothing to open.
 */
export class ListChangedStream {
  readonly #options: ListChangedStreamOptions;
  /** The stream, open or opening. */
  #subscription: Promise<McpSubscription | undefined> | undefined;
  #relistens = 0;
  #relisten: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  constructor(options: ListChangedStreamOptions) {
    this.#options = options;
  }

  /**
   * Opens the stream on `connection`, when the upstream offers it and none is open. A stream the
   * upstream ends is opened again a few times; after that the scheduled refresh still notices
   * changes. Never throws: a stream that cannot be opened is logged.
   */
  listen(connection: Connection): void {
    const { target } = this.#options;
    if (this.#subscription !== undefined || this.#closed || target.kind !== 'http') return;
    // An oauth source's list is fetched with a user's token now and then (a connect, the
    // schedule); no stream is held open on one.
    if (target.auth.kind === 'oauth') return;
    const era = this.#options.era();
    if (era?.kind !== 'modern') return;
    const { capabilities } = era.discover;
    // Resources' and prompts' list changes are heard on the same stream (relayed to clients).
    const filter = {
      ...(capabilities.tools?.listChanged === true ? { toolsListChanged: true } : {}),
      ...(capabilities.prompts?.listChanged === true ? { promptsListChanged: true } : {}),
      ...(capabilities.resources?.listChanged === true ? { resourcesListChanged: true } : {}),
    };
    if (Object.keys(filter).length === 0) return;
    const opening = this.#options
      .outsideCall(() => connection.client.listen(filter, { timeout: CONNECT_TIMEOUT_MS }))
      .then(
        (subscription) => {
          void subscription.closed.then((how) => {
            if (this.#subscription !== opening) return;
            this.#subscription = undefined;
            if (how !== 'remote' || connection.closed || this.#relistens >= MAX_RELISTENS) return;
            this.#relisten = setTimeout(() => this.listen(connection), 1000 * 2 ** this.#relistens);
            this.#relisten.unref();
            this.#relistens++;
          });
          return subscription;
        },
        (error: unknown) => {
          if (this.#subscription === opening) this.#subscription = undefined;
          this.#options.logger.info('upstream tool list changes not heard', {
            sourceId: this.#options.id,
            error: reasonOf(error),
          });
          return undefined;
        },
      );
    this.#subscription = opening;
  }

  /** Opens no stream from now on. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#relisten);
    // Closing its client ends the listen stream; nothing more is said to an upstream being left.
    this.#subscription = undefined;
  }
}
