// The tables `executions/` owns (table-owners.test.ts), as kysely sees them.
// `db/schema.ts` composes every owner's tables into `DatabaseSchema`, so this file imports
// nothing from `db/` (no cycle).
import type { Selectable } from 'kysely';

/** How a tool call ended. */
export type ExecutionOutcome = 'ok' | 'error' | 'denied' | 'timeout';

/**
 * One tool call, for the audit trail. Not tied to `user` by a foreign key: the record should
 * outlive the user it describes.
 */
export interface ExecutionsTable {
  id: string;
  user_id: string;
  tool_path: string;
  started_at: string;
  duration_ms: number | null;
  outcome: ExecutionOutcome | null;
  /** The approval decision, when the tool asked for one. */
  approval: string | null;
  approved_by: string | null;
  /** JSON of the call's arguments, secrets redacted. */
  arguments: string;
  error: string | null;
  /** The MCP endpoint the call came through, when it came through one. */
  endpoint_id: string | null;
  /** The OAuth client of that endpoint, for an `oauth` endpoint. */
  client_id: string | null;
}

/** An `executions` row as read. */
export type ExecutionRow = Selectable<ExecutionsTable>;
