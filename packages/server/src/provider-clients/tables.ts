// The tables `provider-clients/` owns (table-owners.test.ts), as kysely sees them.
// `db/schema.ts` composes every owner's tables into `DatabaseSchema`, so this file imports
// nothing from `db/` (no cycle).

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
