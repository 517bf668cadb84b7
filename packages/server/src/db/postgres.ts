import { type DatabaseIntrospector, type Kysely, PostgresDialect } from 'kysely';
import { CurrentSchemaIntrospector } from './current-schema-introspector.js';
import { type PoolQuery, poolQuery } from './pool-query.js';

/** A pool's connections: open ones, idle ones, and clients waiting for one. */
export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

/** The pool's size when `GATEWAY_DATABASE_POOL_MAX` is unset. */
export const DEFAULT_POOL_MAX = 10;
/** How long opening a connection may take when `GATEWAY_DATABASE_CONNECT_TIMEOUT_MS` is unset. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 5000;
/** How long a connection serves when `GATEWAY_DATABASE_CONNECTION_LIFETIME_SECONDS` is unset. */
export const DEFAULT_CONNECTION_LIFETIME_SECONDS = 300;

/** How the gateway's PostgreSQL pool is sized and how long it waits for a connection. */
export interface PostgresPoolOptions {
  /** The most connections the pool opens (`GATEWAY_DATABASE_POOL_MAX`). Default 10. */
  max?: number;
  /**
   * How long opening a connection, or waiting for a free one, may take before the query fails
   * (`GATEWAY_DATABASE_CONNECT_TIMEOUT_MS`). Default 5000.
   */
  connectTimeoutMs?: number;
  /**
   * How long a connection serves before the pool closes it, when next idle; 0 never closes one
   * (`GATEWAY_DATABASE_CONNECTION_LIFETIME_SECONDS`). Default 300.
   */
  lifetimeSeconds?: number;
}

/** kysely's PostgreSQL dialect, introspecting the current schema only (see the introspector). */
class GatewayPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new CurrentSchemaIntrospector(db);
  }
}

/** True when `url` names a PostgreSQL database rather than a SQLite file. */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(?:ql)?:\/\//i.test(url);
}

/**
 * A kysely dialect over a `pg` pool for `url`. The pool connects lazily, so this never fails on
 * an unreachable server; the first query (or `migrate`) does.
 *
 * `url` may carry any libpq-style parameter `pg` understands, for instance
 * `?options=-c%20search_path%3Dgateway` to keep the gateway's tables in their own schema.
 */
export async function openPostgresDialect(
  url: string,
  options: PostgresPoolOptions = {},
): Promise<{
  dialect: PostgresDialect;
  poolStats: () => PoolStats;
  /** Statements on the pool outside kysely (db/pool-query.ts). */
  query: PoolQuery;
}> {
  // Loaded here: a gateway on SQLite never needs the PostgreSQL driver.
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? DEFAULT_POOL_MAX,
    // Bounds both opening a connection and waiting for a free one: during an outage a request
    // fails within this, never hangs.
    connectionTimeoutMillis: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    // No idle timeout: pg-pool arms a timer for it at every release (and clears it at the next
    // checkout), 16 % of the instructions of a query (issue 30 item 4), and its default of 10 s
    // made an instance resting between bursts (a quiet spell, the scale bench's setups waiting
    // for each other) open its connections again, TCP and password exchange each, per burst.
    // Instead each connection is closed after a lifetime, one timer per connection: a resting
    // instance holds none after it, a busy one renews each connection that often.
    idleTimeoutMillis: 0,
    maxLifetimeSeconds: options.lifetimeSeconds ?? DEFAULT_CONNECTION_LIFETIME_SECONDS,
    // A server gone without a word (a failover, a dropped network) is noticed by TCP.
    keepAlive: true,
    // ... and an idle one is kept alive through NAT gateways and load balancers that drop a
    // connection silent for a few minutes: TCP probes it after a minute without traffic.
    keepAliveInitialDelayMillis: 60_000,
  });
  // An idle client losing its server (a restart, a failover) is reported on the pool; unhandled,
  // that event would crash the process. The pool has already discarded the client and the next
  // query opens a fresh one; the client's own listener (below) logs it.
  pool.on('error', () => {});
  // A client checked out of the pool has no listener of the pool's: one losing its server between
  // two queries (a transaction awaiting its caller, kysely holding it) emits 'error' on itself,
  // which would crash the process. Its query, if any, fails on its own; the pool drops the client
  // when it comes back (it is no longer queryable). The message names no credentials.
  pool.on('connect', (client) => {
    client.on('error', (error) => {
      console.warn(`PostgreSQL connection lost: ${error.message}`);
    });
  });
  const timeout = pool.options.connectionTimeoutMillis;
  // pg-pool arms the wait's timer at every checkout, even when a connection is free (the checkout
  // then waits only for the next tick), and clears it a tick later: a list of 5-second timers made
  // and dropped again each query. Free for every waiter, a connection is taken with no timer;
  // opening one, or waiting for one to come back, stays bounded.
  const connect = () => {
    if (pool.idleCount <= pool.waitingCount) return pool.connect();
    pool.options.connectionTimeoutMillis = 0;
    try {
      return pool.connect();
    } finally {
      pool.options.connectionTimeoutMillis = timeout;
    }
  };
  return {
    dialect: new GatewayPostgresDialect({
      // The pool as kysely uses it (its options and client class cancel a query on a timeout).
      pool: { connect, end: () => pool.end(), options: pool.options, Client: pg.Client },
    }),
    query: poolQuery(connect),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
  };
}
