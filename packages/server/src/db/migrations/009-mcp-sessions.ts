import type { Kysely } from 'kysely';
import type { GatewayMigration } from './migration.js';

/**
 * 2025-revision MCP sessions any instance can serve (issue 17; used on PostgreSQL only, created on
 * both engines so the schema is one). The MCP feature owns these tables (mcp/shared-sessions):
 * - `mcp_sessions`: one row per open session: who opened it, the `initialize` parameters it was
 *   opened with (replayed to rebuild it on another instance), its log level and last use;
 * - `mcp_session_events`: the SSE events of its streams and the instance that sent each, so
 *   `Last-Event-ID` resumes on any instance; they go with their session and after a retention
 *   time;
 * - `mcp_session_messages`: a message between instances too large for a `NOTIFY` payload, which
 *   then carries only its id.
 */
export const mcpSessions: GatewayMigration = {
  async up(db: Kysely<unknown>, dialect) {
    await db.schema
      .createTable('mcp_sessions')
      .addColumn('id', 'text', (col) => col.primaryKey())
      .addColumn('owner', 'text', (col) => col.notNull())
      .addColumn('init_params', 'text', (col) => col.notNull())
      .addColumn('log_level', 'text')
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('last_seen', 'text', (col) => col.notNull())
      .execute();
    await db.schema
      .createIndex('mcp_sessions_owner_idx')
      .on('mcp_sessions')
      .columns(['owner', 'last_seen'])
      .execute();
    await db.schema
      .createIndex('mcp_sessions_last_seen_idx')
      .on('mcp_sessions')
      .column('last_seen')
      .execute();
    await db.schema
      .createTable('mcp_session_events')
      .addColumn('id', dialect === 'postgres' ? 'bigserial' : 'integer', (col) =>
        dialect === 'postgres' ? col.primaryKey() : col.primaryKey().autoIncrement(),
      )
      .addColumn('session_id', 'text', (col) =>
        col.notNull().references('mcp_sessions.id').onDelete('cascade'),
      )
      .addColumn('stream_id', 'text', (col) => col.notNull())
      .addColumn('instance', 'text', (col) => col.notNull())
      .addColumn('message', 'text', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .execute();
    await db.schema
      .createIndex('mcp_session_events_stream_idx')
      .on('mcp_session_events')
      .columns(['session_id', 'stream_id', 'id'])
      .execute();
    await db.schema
      .createIndex('mcp_session_events_created_at_idx')
      .on('mcp_session_events')
      .column('created_at')
      .execute();
    await db.schema
      .createTable('mcp_session_messages')
      .addColumn('id', 'text', (col) => col.primaryKey())
      .addColumn('payload', 'text', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .execute();
  },
};
