// The tables `identity/` owns (table-owners.test.ts), as kysely sees them.
// `db/schema.ts` composes every owner's tables into `DatabaseSchema`, so this file imports
// nothing from `db/` (no cycle).
import type { Selectable } from 'kysely';
import type { AuthBoolean, AuthDate } from '../auth/tables.js';

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

/** A role: tool-path patterns. */
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

/** A `user` row as read. */
export type UserRow = Selectable<UserTable>;

/** A `roles` row as read. */
export type RoleRow = Selectable<RolesTable>;

/** An `api_tokens` row as read. */
export type ApiTokenRow = Selectable<ApiTokensTable>;

/** A `service_accounts` row as read. */
export type ServiceAccountRow = Selectable<ServiceAccountsTable>;
