import type { UpstreamNotice } from './notice.js';
import type { Offers } from './offers.js';
import type { StoredUpstream, UpstreamTarget } from './target.js';
import type { Upstream, UpstreamOptions } from './upstream.js';

/**
 * The upstream client (the MCP SDK v2 client, the gateway's HTTP transport, undici): loaded with the first
 * upstream source, not at start, which most gateways would otherwise pay for nothing.
 */
let upstreamModule: typeof import('./upstream.js') | undefined;

/** Loads the upstream client, which {@link liveSource} needs; once, however often called. */
export async function loadUpstreamClient(): Promise<void> {
  upstreamModule ??= await import('./upstream.js');
}

/** An upstream source as this instance has it: its connections, settings and tool list's state. */
export interface Live {
  upstream: Upstream;
  target: UpstreamTarget;
  namespace: string;
  settings: Pick<
    StoredUpstream,
    'approvalRequired' | 'approval' | 'serviceAccountAllowed' | 'allowElicitation' | 'allowSampling'
  > &
    Partial<Pick<StoredUpstream, 'listedBy'>>;
  fetchedAt: string | null;
  /** What it offers besides tools (resources, prompts, completions), as last fetched. */
  offers: Offers;
  /** Served paths to upstream names, where they differ. */
  mapped: Record<string, string>;
  refreshing: Promise<void> | undefined;
  refreshTimer: ReturnType<typeof setTimeout> | undefined;
  stored: boolean;
  /** The stored row's settings as last applied here (another instance may change them). */
  storedJson?: string | null;
}

/**
 * A source's state here, with the {@link Upstream} that connects to it (nothing is connected
 * yet): not stored, its tool list never fetched. When the upstream says its tool list changed,
 * `refresh` runs (several notifications in a row make one refresh).
 *
 * @throws Error when the upstream client is not loaded yet ({@link loadUpstreamClient}).
 */
export function liveSource(
  source: { id: string; namespace: string; target: UpstreamTarget; settings: Live['settings'] },
  client: Pick<
    UpstreamOptions,
    'policy' | 'maxBytes' | 'logger' | 'messageTimeoutMs' | 'connectTimeoutMs'
  >,
  refresh: () => Promise<void>,
  onNotice?: (notice: UpstreamNotice) => void,
): Live {
  const { id, namespace, target, settings } = source;
  if (upstreamModule === undefined) throw new Error('the upstream client is not loaded yet');
  const live: Live = {
    upstream: new upstreamModule.Upstream({
      id,
      target,
      policy: client.policy,
      maxBytes: client.maxBytes,
      messageTimeoutMs: client.messageTimeoutMs,
      connectTimeoutMs: client.connectTimeoutMs,
      logger: client.logger,
      // Several notifications in a row make one refresh.
      onToolsChanged: () => {
        clearTimeout(live.refreshTimer);
        live.refreshTimer = setTimeout(() => void refresh(), 200);
        live.refreshTimer.unref();
      },
      onNotice,
      relaySettings: () => live.settings,
    }),
    target,
    namespace,
    settings,
    fetchedAt: null,
    offers: {},
    mapped: {},
    refreshing: undefined,
    refreshTimer: undefined,
    stored: false,
  };
  return live;
}
