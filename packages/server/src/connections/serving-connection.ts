import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../db/index.js';
import type { ConnectionOwner } from './tables.js';

/** Which stored connection to look for. */
export interface ConnectionQuery {
  owner: ConnectionOwner;
  /** The user whose own connections count (ignored for team connections). */
  userId: string;
  /** The connection's `tool_id`: the auth provider id. */
  toolId: string;
  /** A named instance; without it the most recently updated top-level connection. */
  instance?: string | undefined;
}

/**
 * The encrypted secret of the connection that serves `query`, if any: the named instance (at any
 * depth), or else the most recently updated top-level connection. Ties on `updated_at` go to the
 * higher id so the choice is stable.
 *
 * @example
 * const stored = await findServingConnection(db, { owner: 'user', userId, toolId: 'github' });
 */
export async function findServingConnection(
  db: Kysely<DatabaseSchema>,
  query: ConnectionQuery,
): Promise<{ id: string; encryptedSecret: string } | undefined> {
  const row = await db
    .selectFrom('connections')
    .select(['id', 'encrypted_secret'])
    .where('owner', '=', query.owner)
    .where('tool_id', '=', query.toolId)
    .$if(query.owner === 'user', (q) => q.where('user_id', '=', query.userId))
    .$if(query.instance !== undefined, (q) => q.where('instance_name', '=', query.instance ?? ''))
    .$if(query.instance === undefined, (q) => q.where('parent_id', 'is', null))
    .orderBy('updated_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? { id: row.id, encryptedSecret: row.encrypted_secret } : undefined;
}
