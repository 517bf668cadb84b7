import { type Kysely, sql } from 'kysely';
import type { GatewayMigration } from './migration.js';

/**
 * What the execution log across users and the admin overview read (issue 38), fast with millions
 * of records:
 * - `(started_at, id)`: the log of everyone, newest first, page after page (keyset);
 * - `(started_at, tool_path, outcome, approval, duration_ms)`: the overview's grouped reads of
 *   the last 7 days, answered from the index alone;
 * - `(endpoint_id, started_at)`: one endpoint's calls, however few;
 * - `(tool_path, started_at)`, in byte order on PostgreSQL (`collate "C"`, whatever the
 *   database's collation): a tool or source prefix that matches few calls is read as a range of
 *   it instead of walking every call newest first (executions/store.ts).
 */
export const executionIndexes: GatewayMigration = {
  async up(db: Kysely<unknown>, dialect) {
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
    await db.schema
      .createIndex('executions_endpoint_id_started_at_idx')
      .on('executions')
      .columns(['endpoint_id', 'started_at'])
      .execute();
    if (dialect === 'postgres') {
      await sql`create index executions_tool_path_idx on executions (tool_path collate "C", started_at)`.execute(
        db,
      );
    } else {
      await db.schema
        .createIndex('executions_tool_path_idx')
        .on('executions')
        .columns(['tool_path', 'started_at'])
        .execute();
    }
  },
};
