import type { ApprovalsTable } from '../approvals/tables.js';
import type { RateLimitTable, SessionTable } from '../auth/tables.js';
import type { VerificationTable } from '../cli-auth/tables.js';
import type { ConnectionsTable } from '../connections/tables.js';
import type { ExecutionsTable } from '../executions/tables.js';
import type {
  ApiTokensTable,
  RolesTable,
  ServiceAccountsTable,
  UserRolesTable,
  UserTable,
} from '../identity/tables.js';
import type { InvitesTable } from '../invites/tables.js';
import type { McpRoundsTable } from '../mcp/call/tables.js';
import type { McpEndpointsTable } from '../mcp-endpoints/tables.js';
import type {
  McpOAuthClientsTable,
  McpOAuthCodesTable,
  McpOAuthTokensTable,
} from '../mcp-oauth/tables.js';
import type { PluginOAuthClientsTable } from '../provider-clients/tables.js';
import type { RegistrySourcesTable } from '../registry/tables.js';
import type { UpstreamToolsTable } from '../upstream/tables.js';
import type {
  UpstreamOAuthClientsTable,
  UpstreamOAuthFlowsTable,
  UpstreamOAuthScopesTable,
} from '../upstream-oauth/tables.js';
import type { AccountTable, OAuthReconnectTable } from '../vending/tables.js';

/** One part of the schema's state read at start (`better-auth`: its schema's fingerprint). */
export interface SchemaStateTable {
  name: string;
  value: string;
}

/**
 * On SQLite: a refresh of OAuth tokens in progress, until `until` (`db/refresh-lease.ts`). `key`
 * names the tokens: `account:<id>` (a sign-in provider's), `upstream:<connection id>`.
 */
export interface RefreshLeasesTable {
  key: string;
  until: string;
}

/**
 * Every table the gateway reads or writes, as kysely sees it. Each table's type sits with its
 * owner, the only code that queries it (`table-owners.test.ts`), in the owner's `tables.ts`; this
 * composes them. Timestamps in every gateway table are ISO 8601 strings, stored as text on both
 * databases so a value reads back byte-identical whichever database holds it (better-auth's own
 * columns differ: `AuthDate` in `auth/tables.ts`).
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
