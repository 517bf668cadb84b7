import { type Kysely, sql } from 'kysely';
import type { GatewayMigration } from './migration.js';

/**
 * What single use of MCP request state, and closing out abandoned calls, need:
 * - `mcp_rounds`: one row per answered round of a 2026-07-28 tool call (the id its
 *   `requestState` carried), inserted when the retry arrives; a second insert of the same id is a
 *   replay, refused on every instance. Rows go once the state could not be used anyway.
 * - a partial index of the execution records without an outcome, so the sweeper that closes out
 *   calls nobody finished reads only those, however many records exist.
 */
export const mcpRounds: GatewayMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('mcp_rounds')
      .addColumn('id', 'text', (col) => col.primaryKey())
      .addColumn('execution_id', 'text', (col) => col.notNull())
      .addColumn('expires_at', 'text', (col) => col.notNull())
      .execute();
    await db.schema
      .createIndex('mcp_rounds_expires_at_idx')
      .on('mcp_rounds')
      .column('expires_at')
      .execute();
    await db.schema
      .createIndex('executions_open_started_at_idx')
      .on('executions')
      .column('started_at')
      .where(sql.ref('outcome'), 'is', null)
      .execute();
  },
};
