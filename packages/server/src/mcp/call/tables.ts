// The tables `mcp/call/` owns (table-owners.test.ts), as kysely sees them.
// `db/schema.ts` composes every owner's tables into `DatabaseSchema`, so this file imports
// nothing from `db/` (no cycle).

/**
 * A round of a 2026-07-28 tool call that a retry has used (its `requestState` question id):
 * state is single use, on every instance.
 */
export interface McpRoundsTable {
  /** The question id the round's `requestState` carried. */
  id: string;
  execution_id: string;
  /** When the state stops verifying anyway; the row can go then. */
  expires_at: string;
}
