// The tables `approvals/` owns (table-owners.test.ts), as kysely sees them.
// `db/schema.ts` composes every owner's tables into `DatabaseSchema`, so this file imports
// nothing from `db/` (no cycle).
import type { Selectable } from 'kysely';

/** Where an approval request stands. */
export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired';

/** An approval waiting for (or decided by) the user, for clients that cannot elicit. */
export interface ApprovalsTable {
  id: string;
  execution_id: string;
  user_id: string;
  tool_path: string;
  message: string;
  /** JSON of the arguments being approved. */
  args: string;
  status: ApprovalStatus;
  decided_by: string | null;
  created_at: string;
  decided_at: string | null;
  expires_at: string;
}

/** An `approvals` row as read. */
export type ApprovalRow = Selectable<ApprovalsTable>;
