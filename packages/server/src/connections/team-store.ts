import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../db/index.js';
import { deleteConnectionTree } from './connection-tree.js';
import type { ConnectionRow } from './tables.js';

/** What {@link createTeamConnection} stores; the secret arrives encrypted and masked. */
export interface NewTeamConnection {
  /** The admin storing it (the row's `user_id`). */
  createdBy: string;
  toolId: string;
  instanceName: string;
  encryptedSecret: string;
  maskedSecret: string;
  description?: string | undefined;
  workspaceId?: string | undefined;
}

/**
 * Stores a team connection (`owner = 'team'`): it serves every user who has no connection of
 * their own for the tool. Undefined when a team connection of that tool with that name exists.
 *
 * @example
 * const row = await createTeamConnection(db, { createdBy: adminId, toolId: 'weather', ... });
 */
export async function createTeamConnection(
  db: Kysely<DatabaseSchema>,
  input: NewTeamConnection,
): Promise<ConnectionRow | undefined> {
  return db.transaction().execute(async (trx) => {
    const duplicate = await trx
      .selectFrom('connections')
      .select('id')
      .where('owner', '=', 'team')
      .where('tool_id', '=', input.toolId)
      .where('instance_name', '=', input.instanceName)
      .executeTakeFirst();
    if (duplicate) return undefined;
    const now = new Date().toISOString();
    const row: ConnectionRow = {
      id: crypto.randomUUID(),
      user_id: input.createdBy,
      owner: 'team',
      tool_id: input.toolId,
      instance_name: input.instanceName,
      description: input.description ?? null,
      encrypted_secret: input.encryptedSecret,
      masked_secret: input.maskedSecret,
      workspace_id: input.workspaceId ?? null,
      parent_id: null,
      created_at: now,
      updated_at: now,
    };
    await trx.insertInto('connections').values(row).execute();
    return row;
  });
}

/** Every team connection, by tool then name; the encrypted secret is not read. */
export async function listTeamConnections(db: Kysely<DatabaseSchema>) {
  return db
    .selectFrom('connections')
    .select([
      'id',
      'user_id',
      'tool_id',
      'instance_name',
      'description',
      'workspace_id',
      'masked_secret',
      'created_at',
      'updated_at',
    ])
    .where('owner', '=', 'team')
    .orderBy('tool_id')
    .orderBy('instance_name')
    .orderBy('id')
    .execute();
}

/**
 * Deletes team connection `id` and anything nested below it; the deleted ids, or empty when `id`
 * is not a team connection.
 */
export async function deleteTeamConnection(
  db: Kysely<DatabaseSchema>,
  id: string,
): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    const found = await trx
      .selectFrom('connections')
      .select('id')
      .where('id', '=', id)
      .where('owner', '=', 'team')
      .executeTakeFirst();
    return found ? deleteConnectionTree(trx, id) : [];
  });
}
