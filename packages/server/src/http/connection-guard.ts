import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { BlockList, isIPv4, isIPv6, type Socket } from 'node:net';
import { normalizeIP } from '@better-auth/core/utils/ip';
import type { ServerLogger } from './logger.js';

/** Options of {@link ConnectionGuard}. */
export interface ConnectionGuardOptions {
  /**
   * A connection must send a complete request head within this: its first one from when it
   * opens (a socket that sends nothing, or half a head, is closed then), each later one from
   * when it starts (Node's `headersTimeout`).
   */
  requestHeadTimeoutMs: number;
  /** How long a request's whole body may take to arrive (Node's `requestTimeout`). */
  requestTimeoutMs: number;
  /** An idle kept-alive connection is closed after this (Node's `keepAliveTimeout`). */
  keepAliveTimeoutMs: number;
  /** Open connections one client address may hold (an IPv6 /64 counts as one address). */
  maxConnectionsPerClient: number;
  /** Open connections in all (Node's `maxConnections`): beyond it new ones are closed at once. */
  maxConnections: number;
  /**
   * `GATEWAY_TRUSTED_PROXIES`: a connection from one of them carries many clients' requests, so
   * it is not held to the per-client cap (the proxy caps its own clients: deploy/haproxy.cfg).
   */
  trustedProxies: readonly string[];
  logger?: Pick<ServerLogger, 'warn'>;
}

/** One open connection. */
interface Tracked {
  /** The client it counts against; undefined for a trusted proxy's. */
  client: string | undefined;
  /** Requests whose answer is not finished. */
  active: number;
  /** Whether a request has come: one that has not may yet be on its way. */
  used: boolean;
  /** Of those, long-lived event streams (`GET` with `Accept: text/event-stream`). */
  streams: number;
  /** Until its first request head arrives. */
  headTimer: NodeJS.Timeout | undefined;
}

/** How often refusals are logged at most: a flood must not flood the log too. */
const REFUSAL_LOG_EVERY_MS = 60_000;

/**
 * Keeps a listener's connections bounded, so idle or slow sockets cannot starve real clients:
 * Node's own timeouts set explicitly, a deadline for a connection's first request head (Node
 * has none for a socket that never sends one), a cap per client address and a total cap. None
 * of these cuts an answer being sent: an event stream or a long call runs as long as it runs.
 * For a stop it also tells which connections are idle, busy, or event streams.
 *
 * @example
 * const guard = new ConnectionGuard(options);
 * serve({ fetch, serverOptions: guard.serverOptions() }, ...);
 * guard.attach(server);
 */
export class ConnectionGuard {
  readonly #options: ConnectionGuardOptions;
  readonly #trusted: BlockList;
  readonly #open = new Map<Socket, Tracked>();
  readonly #perClient = new Map<string, number>();
  #refused = 0;
  #lastLogged = 0;

  constructor(options: ConnectionGuardOptions) {
    this.#options = options;
    this.#trusted = trustedList(options.trustedProxies);
  }

  /** What `http.createServer()` must be given: the timeouts are checked this often. */
  serverOptions(): { connectionsCheckingInterval: number } {
    return {
      connectionsCheckingInterval: Math.max(
        50,
        Math.min(30_000, Math.floor(this.#options.requestHeadTimeoutMs / 4)),
      ),
    };
  }

  /** Applies the limits to `server` (before it accepts its first connection). */
  attach(server: Server): void {
    const options = this.#options;
    server.headersTimeout = options.requestHeadTimeoutMs;
    server.requestTimeout = Math.max(options.requestTimeoutMs, options.requestHeadTimeoutMs);
    server.keepAliveTimeout = options.keepAliveTimeoutMs;
    server.maxConnections = options.maxConnections;
    // Every field is kept (bounded by the head's size) for the front door to count: a count here
    // would cut the list short, or refuse past it without the JSON error body (guard.ts).
    server.maxHeadersCount = 0;
    server.on('connection', (socket: Socket) => this.#accept(socket));
    server.on('request', (request: IncomingMessage, response: ServerResponse) =>
      this.#request(request, response),
    );
  }

  /** How many connections are open. */
  get size(): number {
    return this.#open.size;
  }

  /** How many connections have an answer in progress that is not an event stream. */
  get busy(): number {
    let busy = 0;
    for (const tracked of this.#open.values()) if (tracked.active > tracked.streams) busy += 1;
    return busy;
  }

  /**
   * Closes every kept-alive connection between requests (a stop). One that has not sent a
   * request yet is left alone: its first may be on its way (the head deadline closes it).
   */
  closeIdle(): void {
    for (const [socket, tracked] of this.#open) {
      if (tracked.used && tracked.active === 0) socket.destroy();
    }
  }

  /** Closes every connection with no request in progress, new ones too (the listener is closed). */
  closeUnused(): void {
    for (const [socket, tracked] of this.#open) if (tracked.active === 0) socket.destroy();
  }

  /** Closes every connection that only carries event streams (a stop: clients reconnect elsewhere). */
  closeStreams(): void {
    for (const [socket, tracked] of this.#open) {
      if (tracked.streams > 0 && tracked.active === tracked.streams) socket.destroy();
    }
  }

  /** Closes every connection (a stop whose grace ran out). */
  closeAll(): void {
    for (const socket of this.#open.keys()) socket.destroy();
  }

  #accept(socket: Socket): void {
    const peer = socket.remoteAddress;
    const client = peer === undefined || this.#isTrusted(peer) ? undefined : normalizeIP(peer);
    if (client !== undefined) {
      const held = this.#perClient.get(client) ?? 0;
      if (held >= this.#options.maxConnectionsPerClient) {
        this.#refuse(client);
        socket.destroy();
        return;
      }
      this.#perClient.set(client, held + 1);
    }
    const tracked: Tracked = {
      client,
      active: 0,
      used: false,
      streams: 0,
      headTimer: undefined,
    };
    tracked.headTimer = setTimeout(() => {
      if (tracked.active === 0) socket.destroy();
    }, this.#options.requestHeadTimeoutMs);
    tracked.headTimer.unref();
    this.#open.set(socket, tracked);
    socket.once('close', () => {
      clearTimeout(tracked.headTimer);
      this.#open.delete(socket);
      if (client === undefined) return;
      const left = (this.#perClient.get(client) ?? 1) - 1;
      if (left === 0) this.#perClient.delete(client);
      else this.#perClient.set(client, left);
    });
  }

  #request(request: IncomingMessage, response: ServerResponse): void {
    const tracked = this.#open.get(request.socket);
    if (tracked === undefined) return;
    clearTimeout(tracked.headTimer);
    tracked.headTimer = undefined;
    tracked.used = true;
    const stream =
      request.method === 'GET' && (request.headers.accept ?? '').includes('text/event-stream');
    tracked.active += 1;
    if (stream) tracked.streams += 1;
    response.once('close', () => {
      tracked.active -= 1;
      if (stream) tracked.streams -= 1;
    });
  }

  #isTrusted(peer: string): boolean {
    if (this.#options.trustedProxies.length === 0) return false;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(peer)?.[1];
    const address = mapped ?? peer;
    return this.#trusted.check(address, isIPv4(address) ? 'ipv4' : 'ipv6');
  }

  #refuse(client: string): void {
    this.#refused += 1;
    const now = Date.now();
    if (now - this.#lastLogged < REFUSAL_LOG_EVERY_MS) return;
    this.#lastLogged = now;
    this.#options.logger?.warn('connections refused: a client is at its connection cap', {
      client,
      cap: this.#options.maxConnectionsPerClient,
      refused: this.#refused,
    });
    this.#refused = 0;
  }
}

/** `GATEWAY_TRUSTED_PROXIES` (addresses and CIDR ranges, checked at start) as a block list. */
function trustedList(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/');
    const type = isIPv6(address) ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return list;
}
