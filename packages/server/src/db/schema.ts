import type { ColumnType, Insertable, Selectable, Updateable } from 'kysely';

/**
 * A date column owned by better-auth. better-auth's own migrations make it `date` on SQLite,
 * where its adapter writes ISO 8601 strings, and `timestamptz` on PostgreSQL, where `pg` reads
 * it back as a `Date`. Reads therefore yield either; writes take an ISO string (valid on both) or
 * a `Date` (the SQLite connection turns it into an ISO string, see `database.ts`).
 */
export type AuthDate = ColumnType<Date | string, Date | string, Date | string>;

/**
 * A boolean column owned by better-auth: `integer` 0/1 on SQLite, `boolean` on PostgreSQL.
 * Writes take a boolean on both (the SQLite connection stores it as 0/1).
 */
export type AuthBoolean = ColumnType<boolean | number, boolean | undefined, boolean>;

/** better-auth's core `user` table, column for column. */
export interface UserTable {
  id: string;
  name: string;
  email: string;
  emailVerified: AuthBoolean;
  image: string | null;
  createdAt: AuthDate;
  updatedAt: AuthDate;
}

/** better-auth's core `session` table. */
export interface SessionTable {
  id: string;
  expiresAt: AuthDate;
  token: string;
  createdAt: AuthDate;
  updatedAt: AuthDate;
  ipAddress: string | null;
  userAgent: string | null;
  userId: string;
}

/** better-auth's core `account` table (one row per sign-in method, OAuth tokens included). */
export interface AccountTable {
  id: string;
  accountId: string;
  providerId: string;
  userId: string;
  accessToken: string | null;
  refreshToken: string | null;
  idToken: string | null;
  accessTokenExpiresAt: AuthDate | null;
  refreshTokenExpiresAt: AuthDate | null;
  scope: string | null;
  password: string | null;
  createdAt: AuthDate;
  updatedAt: AuthDate;
}

/** better-auth's core `verification` table. */
export interface VerificationTable {
  id: string;
  identifier: string;
  value: string;
  expiresAt: AuthDate;
  createdAt: AuthDate;
  updatedAt: AuthDate;
}

/**
 * better-auth's `rateLimit` table: one counter per client address and path. `lastRequest` is epoch
 * milliseconds (a bigint, which `pg` reads back as a string).
 */
export interface RateLimitTable {
  id: string;
  key: string;
  count: number;
  lastRequest: ColumnType<number | string, number, number>;
}

/**
 * A role: tool-path patterns. Timestamps in every gateway table are ISO 8601 strings, stored as
 * text on both databases so a value reads back byte-identical whichever database holds it.
 */
export interface RolesTable {
  id: string;
  name: string;
  /** JSON array of tool-path patterns. */
  patterns: string;
  created_at: string;
  updated_at: string;
}

/** A user's assigned role; at most one per user. No row means the default role. */
export interface UserRolesTable {
  user_id: string;
  role_id: string;
  assigned_at: string;
}

/** Who a connection belongs to: its creator only, or every user (made by an admin). */
export type ConnectionOwner = 'user' | 'team';

/** A stored tool secret, encrypted at rest; nested instances point at their parent. */
export interface ConnectionsTable {
  id: string;
  user_id: string;
  owner: ColumnType<ConnectionOwner, ConnectionOwner | undefined, ConnectionOwner>;
  tool_id: string;
  instance_name: string;
  description: string | null;
  encrypted_secret: string;
  masked_secret: string;
  workspace_id: string | null;
  parent_id: string | null;
  created_at: string;
  updated_at: string;
}

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

/** What an API token authenticates as. */
export type ApiTokenKind = 'cli' | 'service_account';

/**
 * A CLI token (`gw_cli_...`) or a service-account key (`gw_sa_...`). Only the SHA-256 hash of the
 * token is kept. For a service-account key `user_id` is the user who issued it and
 * `service_account_id` the account it acts as.
 */
export interface ApiTokensTable {
  id: string;
  kind: ApiTokenKind;
  user_id: string;
  service_account_id: string | null;
  name: string;
  token_hash: string;
  masked_token: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
}

/** A non-human caller with its own role. */
export interface ServiceAccountsTable {
  id: string;
  name: string;
  role_id: string;
  /** Id of the user who created it; kept as plain text so the account outlives that user. */
  created_by: string;
  created_at: string;
}

/** A registered plugin source: a plugin mounted under a tool-path namespace. */
export interface RegistrySourcesTable {
  id: string;
  type: string;
  namespace: string;
  /** Empty for a `type: "mcp"` source. */
  plugin_id: string;
  created_at: string;
  /** For a `type: "mcp"` source, its JSON `{ url, auth, approvalRequired }`; null for a plugin. */
  upstream: string | null;
}

/** The tool list an upstream MCP source last answered (issue 16). */
export interface UpstreamToolsTable {
  source_id: string;
  /** JSON array of MCP `Tool` objects, as the upstream listed them. */
  tools: string;
  fetched_at: string;
  /** JSON of what the upstream offers besides tools (`Offers`, upstream/offers.ts), or null. */
  capabilities: ColumnType<string | null, string | null | undefined, string | null>;
}

/** One part of the schema's state read at start (`better-auth`: its schema's fingerprint). */
export interface SchemaStateTable {
  name: string;
  value: string;
}

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

/** The client an admin gave a plugin's own OAuth provider (Admin → Providers, issue 34). */
export interface PluginOAuthClientsTable {
  /** The plugin's provider id (`<ID>_CLIENT_ID` in the environment wins over the row). */
  provider_id: string;
  client_id: string;
  /** Encrypted like a connection's secret; never returned by any API or page. */
  encrypted_client_secret: string;
  /** The admin who set it. */
  updated_by: string;
  updated_at: string;
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

/**
 * On SQLite: a refresh of OAuth tokens in progress, until `until` (`db/refresh-lease.ts`). `key`
 * names the tokens: `account:<id>` (a sign-in provider's), `upstream:<connection id>`.
 */
export interface RefreshLeasesTable {
  key: string;
  until: string;
}

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

/** A sign-up invite; only its token's SHA-256 is kept. */
export interface InvitesTable {
  id: string;
  token_hash: string;
  /** The only address that may use it (lower case); null: any address. */
  email: string | null;
  /** The admin who made it. */
  created_by: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  /** The account created with it. */
  used_by: string | null;
  /** The address it was used for. */
  used_email: string | null;
  revoked_at: string | null;
}

/** An OAuth account whose refresh the provider refused; see migration 005. */
export interface OAuthReconnectTable {
  account_id: string;
  user_id: string;
  provider_id: string;
  /** SHA-256 (hex) of the account's stored access token when the refresh was refused. */
  access_token_hash: string;
  /** The provider's error code (`invalid_grant`), never a token. */
  reason: string;
  created_at: string;
}

/**
 * Every table the gateway reads or writes, as kysely sees it.
 *
 * @example
 * const rows = await db.selectFrom('roles').selectAll().execute();
 */
export interface DatabaseSchema {
  user: UserTable;
  session: SessionTable;
  account: AccountTable;
  verification: VerificationTable;
  rateLimit: RateLimitTable;
  roles: RolesTable;
  user_roles: UserRolesTable;
  connections: ConnectionsTable;
  mcp_endpoints: McpEndpointsTable;
  mcp_oauth_clients: McpOAuthClientsTable;
  mcp_oauth_codes: McpOAuthCodesTable;
  mcp_oauth_tokens: McpOAuthTokensTable;
  api_tokens: ApiTokensTable;
  service_accounts: ServiceAccountsTable;
  registry_sources: RegistrySourcesTable;
  upstream_tools: UpstreamToolsTable;
  upstream_oauth_clients: UpstreamOAuthClientsTable;
  upstream_oauth_flows: UpstreamOAuthFlowsTable;
  upstream_oauth_scopes: UpstreamOAuthScopesTable;
  plugin_oauth_clients: PluginOAuthClientsTable;
  refresh_leases: RefreshLeasesTable;
  executions: ExecutionsTable;
  approvals: ApprovalsTable;
  mcp_rounds: McpRoundsTable;
  oauth_reconnect: OAuthReconnectTable;
  invites: InvitesTable;
  schema_state: SchemaStateTable;
}

/** A `roles` row as read. */
export type RoleRow = Selectable<RolesTable>;
/** A `connections` row as read. */
export type ConnectionRow = Selectable<ConnectionsTable>;
/** A `connections` row as inserted. */
export type NewConnectionRow = Insertable<ConnectionsTable>;
/** A partial `connections` row as updated. */
export type ConnectionRowUpdate = Updateable<ConnectionsTable>;
/** An `mcp_endpoints` row as read. */
export type McpEndpointRow = Selectable<McpEndpointsTable>;
/** An `api_tokens` row as read. */
export type ApiTokenRow = Selectable<ApiTokensTable>;
/** A `service_accounts` row as read. */
export type ServiceAccountRow = Selectable<ServiceAccountsTable>;
/** A `registry_sources` row as read. */
export type RegistrySourceRow = Selectable<RegistrySourcesTable>;
/** An `executions` row as read. */
export type ExecutionRow = Selectable<ExecutionsTable>;
/** An `approvals` row as read. */
export type ApprovalRow = Selectable<ApprovalsTable>;
/** A `user` row as read. */
export type UserRow = Selectable<UserTable>;
