// The tables `upstream-oauth/` owns (table-owners.test.ts), as kysely sees them.
// `db/schema.ts` composes every owner's tables into `DatabaseSchema`, so this file imports
// nothing from `db/` (no cycle).

/** The OAuth client the gateway is at an upstream's authorization server (issue 16). */
export interface UpstreamOAuthClientsTable {
  source_id: string;
  /** The authorization server's issuer; empty for an admin's client not used yet. */
  issuer: string;
  client_id: string;
  /** `base64(iv):base64(ciphertext)`, or null for a public client. */
  encrypted_client_secret: string | null;
  redirect_uri: string;
  /** JSON of the authorization server's metadata (RFC 8414), as checked; `{}` when not yet known. */
  metadata: string;
  created_at: string;
}

/** A connect to an upstream's authorization server in progress: single use, short-lived. */
export interface UpstreamOAuthFlowsTable {
  /** SHA-256 (hex) of the `state` sent to the authorization server. */
  state_hash: string;
  user_id: string;
  source_id: string;
  issuer: string;
  /** The PKCE code verifier, encrypted. */
  encrypted_verifier: string;
  /** The resource indicator (RFC 8707) the token is for. */
  resource: string;
  /** JSON: where the browser goes afterwards (the Tools tab, or a CLI's loopback). */
  return_to: string;
  expires_at: string;
}

/** Scopes a user's next connect to an upstream asks for, after the upstream said the token lacks them. */
export interface UpstreamOAuthScopesTable {
  user_id: string;
  source_id: string;
  /** Space-separated scope tokens (RFC 6749 §3.3). */
  scope: string;
  updated_at: string;
}
