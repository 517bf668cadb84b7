import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../db/index.js';
import { rowLocksSupported } from '../db/locks.js';
import { lockUser } from '../identity/user-store.js';
import { deleteConnectionTree } from './connection-tree.js';
import type { ConnectionRow } from './tables.js';

/** What {@link createConnection} stores. The secret arrives already encrypted and masked. */
export interface NewConnection {
  userId: string;
  toolId: string;
  instanceName: string;
  /** `base64(iv):base64(ciphertext)` from the secret box; the raw secret never reaches the store. */
  encryptedSecret: string;
  maskedSecret: string;
  description?: string | undefined;
  workspaceId?: string | undefined;
  parentId?: string | undefined;
  /** When it was created; now unless given (tests pin it to check ordering). */
  now?: Date;
}

/** Why a connection was not created. */
export type CreateConnectionProblem =
  | { problem: 'user_not_found' }
  /** The parent does not exist, or is not one of the user's own connections. */
  | { problem: 'parent_not_found' }
  /** The parent belongs to another tool; nested instances share their parent's tool. */
  | { problem: 'parent_tool_mismatch'; parentToolId: string }
  /** The user already has a connection of this tool with this name under the same parent. */
  | { problem: 'duplicate' };

/** The outcome of {@link createConnection}. */
export type CreateConnectionResult =
  | { ok: true; connection: ConnectionRow }
  | ({ ok: false } & CreateConnectionProblem);

/** A connection as listed: no description, and no secret but the masked one. */
export type ConnectionListItem = Pick<
  ConnectionRow,
  | 'id'
  | 'user_id'
  | 'tool_id'
  | 'instance_name'
  | 'masked_secret'
  | 'workspace_id'
  | 'parent_id'
  | 'created_at'
  | 'updated_at'
>;

/**
 * Stores a user's own connection (`owner = 'user'`) after checking, in one transaction, that the
 * user exists, that the parent (if any) is one of their connections of the same tool, and that
 * they have no connection of that tool with that name under that parent.
 *
 * @example
 * const result = await createConnection(db, {
 *   userId, toolId: 'github', instanceName: 'Work', encryptedSecret, maskedSecret,
 * });
 * if (!result.ok) console.log(result.problem); // 'duplicate', ...
 *
 * @throws the database's error when a query fails; nothing is stored then.
 */
export async function createConnection(
  db: Kysely<DatabaseSchema>,
  input: NewConnection,
): Promise<CreateConnectionResult> {
  return db.transaction().execute(async (trx): Promise<CreateConnectionResult> => {
    if (!(await lockUser(trx, input.userId))) return { ok: false, problem: 'user_not_found' };

    const parentId = input.parentId ?? null;
    if (parentId !== null) {
      const parent = await trx
        .selectFrom('connections')
        .select('tool_id')
        .where('id', '=', parentId)
        .where('user_id', '=', input.userId)
        .where('owner', '=', 'user')
        // Holds the parent until the child is in: a concurrent tree delete then waits for us and
        // removes the child with it, instead of our insert failing its foreign key.
        .$if(rowLocksSupported(trx), (query) => query.forKeyShare())
        .executeTakeFirst();
      if (!parent) return { ok: false, problem: 'parent_not_found' };
      if (parent.tool_id !== input.toolId) {
        return { ok: false, problem: 'parent_tool_mismatch', parentToolId: parent.tool_id };
      }
    }

    const duplicate = await trx
      .selectFrom('connections')
      .select('id')
      .where('user_id', '=', input.userId)
      .where('owner', '=', 'user')
      .where('tool_id', '=', input.toolId)
      .where('instance_name', '=', input.instanceName)
      .where((eb) =>
        parentId === null ? eb('parent_id', 'is', null) : eb('parent_id', '=', parentId),
      )
      .executeTakeFirst();
    if (duplicate) return { ok: false, problem: 'duplicate' };

    const now = (input.now ?? new Date()).toISOString();
    const connection: ConnectionRow = {
      id: crypto.randomUUID(),
      user_id: input.userId,
      owner: 'user',
      tool_id: input.toolId,
      instance_name: input.instanceName,
      description: input.description ?? null,
      encrypted_secret: input.encryptedSecret,
      masked_secret: input.maskedSecret,
      workspace_id: input.workspaceId ?? null,
      parent_id: parentId,
      created_at: now,
      updated_at: now,
    };
    await trx.insertInto('connections').values(connection).execute();
    return { ok: true, connection };
  });
}

/**
 * The user's own connections (not team connections), oldest first, ties broken by id so the
 * order is stable. The encrypted secret is not even read.
 *
 * @example
 * const connections = await listUserConnections(db, userId);
 */
export async function listUserConnections(
  db: Kysely<DatabaseSchema>,
  userId: string,
): Promise<ConnectionListItem[]> {
  return db
    .selectFrom('connections')
    .select([
      'id',
      'user_id',
      'tool_id',
      'instance_name',
      'masked_secret',
      'workspace_id',
      'parent_id',
      'created_at',
      'updated_at',
    ])
    .where('user_id', '=', userId)
    .where('owner', '=', 'user')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/**
 * Deletes the user's own connection `id` and every connection below it, in one transaction, and
 * returns the deleted ids (root first). Empty when `id` does not exist or is not one of the
 * user's own connections: the caller cannot tell the two apart, by design.
 *
 * @example
 * const deleted = await deleteUserConnection(db, userId, connectionId); // [id, ...children]
 *
 * @throws the database's error when a query fails; nothing is deleted then.
 */
export async function deleteUserConnection(
  db: Kysely<DatabaseSchema>,
  userId: string,
  id: string,
): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    const owned = await trx
      .selectFrom('connections')
      .select('id')
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .where('owner', '=', 'user')
      .executeTakeFirst();
    if (!owned) return [];
    return deleteConnectionTree(trx, id);
  });
}

/**
 * Deletes every connection of auth provider `toolId` (an OAuth upstream's users' tokens when its
 * source goes), inside the caller's transaction when given one; how many went.
 *
 * @example
 * const removed = await deleteToolConnections(trx, oauthToolId(sourceId));
 */
export async function deleteToolConnections(
  db: Kysely<DatabaseSchema>,
  toolId: string,
): Promise<number> {
  const result = await db
    .deleteFrom('connections')
    .where('tool_id', '=', toolId)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * The stored (encrypted) secret of connection `id`, whoever owns it; undefined when there is no
 * such connection. Only the server-side decrypt route may use it.
 *
 * @example
 * const stored = await findEncryptedSecret(db, id);
 * const secret = stored === undefined ? undefined : secrets.decrypt(stored);
 */
export async function findEncryptedSecret(
  db: Kysely<DatabaseSchema>,
  id: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('connections')
    .select('encrypted_secret')
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.encrypted_secret;
}
