import type { Kysely } from 'kysely';
import type { GatewayMigration } from './migration.js';

/**
 * What the execution log across users and the admin overview read (issue 38), fast with millions
 * of records:
 * - `(started_at, id)`: the log of everyone, newest first, page after page (keyset);
 * - `(started_at, tool_path, outcome, approval, duration_ms)`: the overview's grouped reads of
 *   the last 7 days, answered from the index alone.
 */
export const executionIndexes: GatewayMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createIndex('executions_started_at_id_idx')
      .on('executions')
      .columns(['started_at', 'id'])
      .execute();
    await db.schema
      .createIndex('executions_activity_idx')
      .on('executions')
      .columns(['started_at', 'tool_path', 'outcome', 'approval', 'duration_ms'])
      .execute();
  },
};
