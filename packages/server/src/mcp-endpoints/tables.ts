// The tables `mcp-endpoints/` owns (table-owners.test.ts), as kysely sees them.
// `db/schema.ts` composes every owner's tables into `DatabaseSchema`, so this file imports
// nothing from `db/` (no cycle).
import type { ColumnType, Selectable } from 'kysely';

/** A per-user MCP endpoint. Only the SHA-256 hash of its token is kept. */
export interface McpEndpointsTable {
  id: string;
  user_id: string;
  name: string;
  description: string | null;
  token_hash: string;
  masked_token: string;
  created_at: string;
  last_used_at: string | null;
  /** JSON array of tool-path patterns narrowing the role (migration 015); null: the whole role. */
  tools: ColumnType<string | null, string | null | undefined, string | null>;
  /** `tools` or `discovery` (migration 015); `tools` unless set. */
  mode: ColumnType<string, string | undefined, string>;
  /** `token` (a `gw_mcp_` token) or `oauth` (a client's sign-in; `token_hash` is `oauth:<id>`). */
  kind: ColumnType<McpEndpointKind, McpEndpointKind | undefined, McpEndpointKind>;
  /** The client of an `oauth` endpoint. */
  oauth_client_id: ColumnType<string | null, string | null | undefined, string | null>;
}

/** How an MCP endpoint is reached: its own token, or OAuth tokens from a client's sign-in. */
export type McpEndpointKind = 'token' | 'oauth';

/** An `mcp_endpoints` row as read. */
export type McpEndpointRow = Selectable<McpEndpointsTable>;
