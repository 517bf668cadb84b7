import { type Kysely, sql } from 'kysely';
import type { GatewayMigration } from './migration.js';

/**
 * The partial index of execution records without an outcome (003) gains `id`: the
 * sweeper that closes out abandoned calls reads them by `(started_at, id)`, a total order, and
 * with the index on `started_at` alone SQLite's planner took `(started_at, id)` of every record
 * (016) instead, reading the finished ones too.
 */
export const openExecutionsId: GatewayMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema.dropIndex('executions_open_started_at_idx').execute();
    await db.schema
      .createIndex('executions_open_started_at_id_idx')
      .on('executions')
      .columns(['started_at', 'id'])
      .where(sql.ref('outcome'), 'is', null)
      .execute();
  },
};
