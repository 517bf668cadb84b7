import type { Kysely } from 'kysely';
import type { GatewayMigration } from './migration.js';

/**
 * better-auth's `rateLimit` table, for its rate limiter with `storage: 'database'`: the counters
 * live in the shared database, so a limit holds across every instance behind a load balancer.
 * Column for column what better-auth's own migration creates (a unique `key`, `lastRequest` in
 * epoch milliseconds as a bigint), so its schema check finds nothing to add. The gateway's own
 * token endpoint counts in the same table.
 */
export const rateLimit: GatewayMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('rateLimit')
      .addColumn('id', 'text', (col) => col.primaryKey().notNull())
      .addColumn('key', 'text', (col) => col.notNull().unique())
      .addColumn('count', 'integer', (col) => col.notNull())
      .addColumn('lastRequest', 'bigint', (col) => col.notNull())
      .execute();
  },
};
