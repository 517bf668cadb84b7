import type { Generated, Kysely } from 'kysely';
import type { DatabaseSchema, GatewayDatabase } from '../../../db/index.js';

/** `mcp_sessions`: a 2025 session any instance can serve (migration 007). */
export interface McpSessionsTable {
  id: string;
  /** `principalKey()` of the principal that opened it: only that principal may use it. */
  owner: string;
  /** JSON of the `initialize` params the client sent (version asked, capabilities, client info). */
  init_params: string;
  /** The level `logging/setLevel` asked for, when it did. */
  log_level: string | null;
  created_at: string;
  last_seen: string;
}

/** `mcp_session_events`: the SSE events of a session's streams, for `Last-Event-ID`. */
export interface McpSessionEventsTable {
  /** Ordered within a stream; `pg` reads a bigint back as a string. */
  id: Generated<string | number>;
  session_id: string;
  stream_id: string;
  /** The instance that sent it (its bus name), which holds the stream while it is open. */
  instance: string;
  /** JSON of the message sent. */
  message: string;
  created_at: string;
}

/** `mcp_session_messages`: a message between instances too large for a `NOTIFY` payload. */
export interface McpSessionMessagesTable {
  id: string;
  payload: string;
  created_at: string;
}

/** The tables the shared sessions own (a type alias: kysely needs its index signature). */
export type SessionTables = {
  mcp_sessions: McpSessionsTable;
  mcp_session_events: McpSessionEventsTable;
  mcp_session_messages: McpSessionMessagesTable;
};

/** The gateway's query builder, knowing these tables too. */
export type SessionDb = Kysely<DatabaseSchema & SessionTables>;

/** `database`'s query builder with the session tables, which the feature declares itself. */
export function sessionDb(database: GatewayDatabase): SessionDb {
  return database.db.withTables<SessionTables>();
}
