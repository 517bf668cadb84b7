// The tables `vending/` owns (table-owners.test.ts), as kysely sees them.
// `db/schema.ts` composes every owner's tables into `DatabaseSchema`, so this file imports
// nothing from `db/` (no cycle).
import type { AuthDate } from '../auth/tables.js';

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
