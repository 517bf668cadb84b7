// The tables `connections/` owns (table-owners.test.ts), as kysely sees them.
// `db/schema.ts` composes every owner's tables into `DatabaseSchema`, so this file imports
// nothing from `db/` (no cycle).
import type { ColumnType, Insertable, Selectable, Updateable } from 'kysely';

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

/** A `connections` row as read. */
export type ConnectionRow = Selectable<ConnectionsTable>;

/** A `connections` row as inserted. */
export type NewConnectionRow = Insertable<ConnectionsTable>;

/** A partial `connections` row as updated. */
export type ConnectionRowUpdate = Updateable<ConnectionsTable>;
