// The tables `invites/` owns (table-owners.test.ts), as kysely sees them.
// `db/schema.ts` composes every owner's tables into `DatabaseSchema`, so this file imports
// nothing from `db/` (no cycle).

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
