/**
 * The environment variables of the listening socket and of a stop (see env.ts for the others):
 * how long connections may take and stay, how many there may be, how a SIGTERM drains.
 */
import { readFileSync } from 'node:fs';
import { type Env, value } from './env.js';

/** What the environment says about connections and stopping, every default applied. */
export interface ConnectionSettings {
  /** `GATEWAY_SHUTDOWN_GRACE_MS`: how long a SIGTERM lets calls in flight finish. */
  shutdownGraceMs: number;
  /** `GATEWAY_SHUTDOWN_NOTICE_MS`: how long new requests get 503 before the listener closes. */
  shutdownNoticeMs: number;
  /** `GATEWAY_REQUEST_HEAD_TIMEOUT_MS`: a request's head must arrive within this. */
  requestHeadTimeoutMs: number;
  /** `GATEWAY_KEEP_ALIVE_TIMEOUT_MS`: an idle kept-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** `GATEWAY_MAX_CONNECTIONS_PER_CLIENT`: open connections one address may hold. */
  maxConnectionsPerClient: number;
  /** `GATEWAY_MAX_CONNECTIONS`: open connections in all. */
  maxConnections: number;
}

/** How long a request's body may take to arrive once its head has (not a setting). */
export const REQUEST_TIMEOUT_MS = 60_000;

/**
 * Reads the connection and stop settings of `env`.
 *
 * @throws Error naming the variable when one is not a whole number in its range.
 */
export function connectionSettings(env: Env): ConnectionSettings {
  const shutdownGraceMs = whole(env, 'GATEWAY_SHUTDOWN_GRACE_MS', 25_000, 0);
  return {
    shutdownGraceMs,
    shutdownNoticeMs: Math.min(shutdownGraceMs, whole(env, 'GATEWAY_SHUTDOWN_NOTICE_MS', 3000, 0)),
    requestHeadTimeoutMs: whole(env, 'GATEWAY_REQUEST_HEAD_TIMEOUT_MS', 10_000, 100),
    keepAliveTimeoutMs: whole(env, 'GATEWAY_KEEP_ALIVE_TIMEOUT_MS', 5000, 100),
    maxConnectionsPerClient: whole(env, 'GATEWAY_MAX_CONNECTIONS_PER_CLIENT', 128, 1),
    maxConnections: whole(env, 'GATEWAY_MAX_CONNECTIONS', defaultMaxConnections(), 1),
  };
}

/**
 * The default total cap: the process's open-file limit less what the rest of the process needs
 * (database connections, upstreams, plugin and log files): a tenth of it, at least 128; 4,096
 * where the limit cannot be read (not Linux).
 */
export function defaultMaxConnections(): number {
  return maxConnectionsUnder(readLimits());
}

/** {@link defaultMaxConnections} for the text of `/proc/self/limits` (undefined: unreadable). */
export function maxConnectionsUnder(limits: string | undefined): number {
  const files = limits === undefined ? undefined : /^Max open files\s+(\d+)/m.exec(limits)?.[1];
  if (files === undefined) return 4096;
  const soft = Number(files);
  return Math.max(16, soft - Math.max(128, Math.ceil(soft / 10)));
}

function readLimits(): string | undefined {
  try {
    return readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return undefined;
  }
}

function whole(env: Env, name: string, fallback: number, min: number): number {
  const raw = value(env, name);
  if (raw === undefined) return fallback;
  const parsed = /^\d{1,9}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(parsed >= min)) {
    throw new Error(`${name} must be a whole number >= ${min}, got "${raw}"`);
  }
  return parsed;
}
