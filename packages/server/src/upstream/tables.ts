// The tables `upstream/` owns (table-owners.test.ts), as kysely sees them.
// `db/schema.ts` composes every owner's tables into `DatabaseSchema`, so this file imports
// nothing from `db/` (no cycle).
import type { ColumnType } from 'kysely';

/** The tool list an upstream MCP source last answered (issue 16). */
export interface UpstreamToolsTable {
  source_id: string;
  /** JSON array of MCP `Tool` objects, as the upstream listed them. */
  tools: string;
  fetched_at: string;
  /** JSON of what the upstream offers besides tools (`Offers`, upstream/offers.ts), or null. */
  capabilities: ColumnType<string | null, string | null | undefined, string | null>;
}
