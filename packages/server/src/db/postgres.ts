import { type DatabaseIntrospector, type Kysely, PostgresDialect } from 'kysely';
import { CurrentSchemaIntrospector } from './current-schema-introspector.js';

/** A pool's connections: open ones, idle ones, and clients waiting for one. */
export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
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
export async function openPostgresDialect(url: string): Promise<{
  dialect: PostgresDialect;
  poolStats: () => PoolStats;
}> {
  // Loaded here: a gateway on SQLite never needs the PostgreSQL driver.
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: url });
  // An idle client losing its server (a restart, a failover) is reported on the pool; unhandled,
  // that event would crash the process. The pool has already discarded the client and the next
  // query opens a fresh one, so a warning is all that is due. The message names no credentials.
  pool.on('error', (error) => {
    console.warn(`PostgreSQL idle connection error: ${error.message}`);
  });
  return {
    dialect: new GatewayPostgresDialect({ pool }),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
  };
}
