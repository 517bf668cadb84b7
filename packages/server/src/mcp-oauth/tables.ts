// The tables `mcp-oauth/` owns (table-owners.test.ts), as kysely sees them.
// `db/schema.ts` composes every owner's tables into `DatabaseSchema`, so this file imports
// nothing from `db/` (no cycle).

/** A client of Gateway's own authorization server: registered (DCR) or a fetched metadata document. */
export interface McpOAuthClientsTable {
  client_id: string;
  kind: 'dcr' | 'cimd';
  client_name: string;
  /** JSON array of exact redirect URIs. */
  redirect_uris: string;
  application_type: 'web' | 'native';
  /** JSON of the client metadata as registered or fetched. */
  metadata: string;
  created_at: string;
  last_used_at: string | null;
  /** A metadata document: when the cached copy must be fetched again. */
  expires_at: string | null;
}

/** An authorization code of Gateway's authorization server, by its SHA-256. */
export interface McpOAuthCodesTable {
  code_hash: string;
  client_id: string;
  user_id: string;
  redirect_uri: string;
  code_challenge: string;
  resource: string;
  scope: string;
  expires_at: string;
  /** Set when redeemed: the endpoint it made (revoked if the code is replayed). */
  endpoint_id: string | null;
}

/** An access or refresh token of Gateway's authorization server, by its SHA-256. */
export interface McpOAuthTokensTable {
  token_hash: string;
  kind: 'access' | 'refresh';
  endpoint_id: string;
  client_id: string;
  resource: string;
  scope: string;
  created_at: string;
  expires_at: string;
  /** A refresh token exchanged once: presenting it again revokes the whole grant. */
  rotated_at: string | null;
}
