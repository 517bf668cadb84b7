import type { Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Hono } from 'hono';
import type { GatewayAddress } from './gateway-address.js';
import type { GatewaySettings } from './gateway-settings.js';
import type { AppEnv } from './http/app-env.js';
import { ConnectionGuard } from './http/connection-guard.js';
import type { DrainState } from './http/drain.js';
import { GatewayResponse } from './http/gateway-response.js';
import { closeListener, listenError } from './http/listener.js';
import { serve } from './http/node-adapter/index.js';
import type { LazyMcpEndpoint } from './mcp/index.js';
import type { RegistryService } from './registry/index.js';
import type { GatewayServices } from './services.js';

/** What {@link GatewayLifecycle} starts and stops. */
export interface LifecycleParts {
  app: Hono<AppEnv>;
  settings: GatewaySettings;
  address: GatewayAddress;
  services: Pick<GatewayServices, 'logger' | 'database' | 'upstreams' | 'approvals' | 'executions'>;
  registry: RegistryService;
  mcp: LazyMcpEndpoint;
  draining: DrainState;
}

/**
 * A gateway's listening socket and what runs beside it (the upstreams' schedule, the registry's
 * sync), from `start()` to `stop()` or a deploy's `drain()`.
 *
 * @example
 * const lifecycle = new GatewayLifecycle({ app, settings, address, services, registry, ... });
 * await lifecycle.start();
 * await lifecycle.drain();
 */
export class GatewayLifecycle {
  readonly #parts: LifecycleParts;
  readonly #guard: ConnectionGuard;
  #server: Server | undefined;
  #registrySync: NodeJS.Timeout | undefined;
  #syncing: Promise<void> | undefined;

  constructor(parts: LifecycleParts) {
    this.#parts = parts;
    const { settings } = parts;
    this.#guard = new ConnectionGuard({
      ...settings.connections,
      trustedProxies: settings.trustedProxies,
      logger: parts.services.logger,
    });
  }

  /** Listens on host and port; resolves to the address. */
  start(): Promise<{ url: string; port: number }> {
    const { app, settings, address } = this.#parts;
    const { host, port } = settings;
    return new Promise((resolve, reject) => {
      const listening = serve(
        {
          fetch: (request, env) => app.fetch(request, env),
          hostname: host,
          port,
          // Every answer's response writes the gateway's own headers with its head.
          serverOptions: { ...this.#guard.serverOptions(), ServerResponse: GatewayResponse },
        },
        (info) => {
          // With port 0 the real port is known only now; derived addresses follow it.
          address.listening(info.port);
          this.#startSchedules();
          resolve({ url: address.baseUrl, port: info.port });
        },
      );
      this.#guard.attach(listening);
      listening.once('error', (error: NodeJS.ErrnoException) => {
        reject(listenError(error, host, port));
      });
      this.#server = listening;
    });
  }

  /** Stops listening and closes the database. */
  async stop(): Promise<void> {
    const { mcp, services } = this.#parts;
    // First, so open MCP streams (2025 sessions, calls waiting for approval) do not hold the
    // listening socket open.
    clearInterval(this.#registrySync);
    this.#registrySync = undefined;
    await this.#syncing;
    await mcp.close();
    await services.upstreams.close();
    if (this.#server) {
      const closing = this.#server;
      this.#server = undefined;
      // Sockets that never sent a whole request are no call to wait for.
      this.#guard.closeUnused();
      await closeListener(closing);
    }
    await services.approvals.close();
    await services.executions.close();
    await services.database.close();
  }

  /** See `Gateway.drain`: refuse new requests, let calls in flight finish, then stop. */
  async drain(): Promise<void> {
    const guard = this.#guard;
    const { shutdownGraceMs, shutdownNoticeMs } = this.#parts.settings.connections;
    const deadline = Date.now() + shutdownGraceMs;
    this.#parts.draining.start();
    // Their clients reconnect, through the balancer to another instance.
    this.#parts.mcp.closeStreams();
    guard.closeIdle();
    // While the balancer notices (/readyz), new requests are refused, not connections.
    const noticeEnds = Date.now() + Math.min(shutdownNoticeMs, shutdownGraceMs);
    while (Date.now() < noticeEnds) {
      await sleep(Math.min(100, noticeEnds - Date.now()));
      guard.closeIdle();
    }
    const listener = this.#server;
    this.#server = undefined;
    const closed = listener === undefined ? undefined : closeListener(listener);
    // Calls in flight finish, within the grace; streams opened meanwhile and idle
    // connections are closed as they appear.
    while (guard.busy > 0 && Date.now() < deadline) {
      guard.closeStreams();
      guard.closeUnused();
      await sleep(Math.min(50, Math.max(1, deadline - Date.now())));
    }
    guard.closeAll();
    await closed;
    await this.stop();
  }

  #startSchedules(): void {
    const { services, settings } = this.#parts;
    services.upstreams.startSchedule();
    if (settings.registrySyncMs > 0 && this.#registrySync === undefined) {
      this.#registrySync = setInterval(() => this.#syncRegistry(), settings.registrySyncMs);
      this.#registrySync.unref();
    }
  }

  #syncRegistry(): void {
    this.#syncing ??= this.#parts.registry
      .sync()
      .catch((error: unknown) => {
        this.#parts.services.logger.warn('registry sync failed; retrying on the next pass', {
          error: error instanceof Error ? error.message : String(error),
        });
      })
      .finally(() => {
        this.#syncing = undefined;
      });
  }
}
