import { AbandonedCallSweeper } from '../call/abandoned-calls.js';
import { type McpOptions, resolveMcpOptions } from '../options.js';
import type { McpDeps } from '../runtime.js';
import type { McpDeployment, McpEndpoint } from './mcp-endpoint.js';
import type { ToolsChange } from './shared-sessions/session-bus.js';

/**
 * The MCP endpoint, built with the first MCP request instead of at start: the MCP SDK is the
 * largest part of what a start would load, and a gateway serves `/healthz`, the API and the web
 * app without it. What must happen whether or not a client ever calls happens at once: the
 * options are checked (a bad one stops the start) and the sweeper of abandoned calls runs. On
 * PostgreSQL a policy change made here before the endpoint exists (a role edited through this
 * instance's API, an endpoint's tools changed) builds it, so the other instances' 2025 clients hear of it; elsewhere no client
 * of this instance can be listening yet. Concurrent first requests wait for the same endpoint.
 *
 * @example
 * const mcp = new LazyMcpEndpoint(services, authSecret, maxBodyBytes, options);
 * mountMcp(app, mcp, authenticate);
 */
export class LazyMcpEndpoint {
  readonly #sweeper: AbandonedCallSweeper;
  readonly #create: () => Promise<McpEndpoint>;
  #endpoint: Promise<McpEndpoint> | undefined;
  #loaded: McpEndpoint | undefined;
  #closed = false;
  readonly #stopWatching: () => void;

  /** @throws Error naming the option when one of `options` is out of range. */
  constructor(
    services: McpDeps,
    authSecret: string,
    maxBodyBytes: number,
    options: McpOptions = {},
    deployment: McpDeployment = {},
  ) {
    const resolved = resolveMcpOptions(options, maxBodyBytes);
    this.#sweeper = new AbandonedCallSweeper({
      services,
      approvalTimeoutMs: resolved.approvalTimeoutMs,
      toolTimeoutMs: resolved.toolTimeoutMs,
      everyMs: resolved.sweepEveryMs,
    });
    this.#sweeper.start();
    this.#create = async () => {
      const { McpEndpoint } = await import('./mcp-endpoint.js');
      return new McpEndpoint(services, authSecret, maxBodyBytes, options, deployment);
    };
    const shared = deployment.postgresUrl !== undefined && services.database.dialect === 'postgres';
    const early = (change: ToolsChange) => {
      if (!shared || this.#endpoint !== undefined || this.#closed) return;
      // Built now, it did not see this change: it is handed over.
      void this.endpoint().then(
        (endpoint) => endpoint.toolsChanged(change),
        (error: unknown) =>
          services.logger.warn('MCP endpoint not built for a tool change', {
            error: error instanceof Error ? error.message : String(error),
          }),
      );
    };
    // Only policy and endpoint changes: a catalog change (a registration) reaches every instance through its
    // own registry sync, and the ones made while starting must not build the endpoint.
    const stopPolicy = services.policy.onChange((change) => early(change));
    const stopEndpoints = services.endpointScopes.onChange((endpointId) =>
      early({ kind: 'endpoint', endpointId }),
    );
    this.#stopWatching = () => {
      stopPolicy();
      stopEndpoints();
    };
  }

  /** How many 2025 sessions are open on this instance (none before the first MCP request). */
  get sessionCount(): number {
    return this.#loaded?.sessionCount ?? 0;
  }

  /** The endpoint once built, while the gateway is not stopping (no turn for it on every call). */
  get loaded(): McpEndpoint | undefined {
    return this.#closed ? undefined : this.#loaded;
  }

  /** The endpoint, built on first use. @throws Error once the gateway is stopping. */
  endpoint(): Promise<McpEndpoint> {
    if (this.#closed) return Promise.reject(new Error('the MCP endpoint is closed'));
    this.#endpoint ??= this.#create().then((endpoint) => {
      this.#loaded = endpoint;
      return endpoint;
    });
    return this.#endpoint;
  }

  /**
   * Ends the standalone event streams of the 2025 sessions held here, if the endpoint was ever
   * built: their clients reconnect (a drain: to another instance). Never throws.
   */
  closeStreams(): void {
    this.#loaded?.closeStreams();
  }

  /** Stops the sweeper and closes the endpoint's sessions, if it was ever built. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#stopWatching();
    await this.#sweeper.stop();
    if (this.#endpoint !== undefined) await (await this.#endpoint).close();
  }
}
