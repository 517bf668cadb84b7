// The tables `registry/` owns (table-owners.test.ts), as kysely sees them.
// `db/schema.ts` composes every owner's tables into `DatabaseSchema`, so this file imports
// nothing from `db/` (no cycle).
import type { Selectable } from 'kysely';

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

/** A `registry_sources` row as read. */
export type RegistrySourceRow = Selectable<RegistrySourcesTable>;
