import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { DatabaseSchema } from '../db/index.js';
import { lockUser } from '../identity/user-store.js';
import type { ConnectionOwner } from './tables.js';

type Db = Kysely<DatabaseSchema>;

/**
 * The queries other features make of connection rows' secrets: the tokens `upstream-oauth/`
 * keeps as users' connections of tool `mcp.<source id>` (saved, refreshed, marked), and
 * `gateway rekey`'s rewrite of every secret. `connections/` is the only code that queries the
 * table; these are its answers to them.
 */

/**
 * Saves `userId`'s own, top-level connection of `toolId` holding `encrypted`: the one there is
 * gets the new secret (any duplicates go), else one named `Default` is made. One transaction,
 * the user's row held while it runs ({@link lockUser}). False when there is no such user.
 */
export async function saveOwnConnection(
  db: Db,
  input: { userId: string; toolId: string; encrypted: string; masked: string; now: string },
): Promise<boolean> {
  const { userId, toolId, encrypted, masked, now } = input;
  return db.transaction().execute(async (trx) => {
    if (!(await lockUser(trx, userId))) return false;
    const existing = await trx
      .selectFrom('connections')
      .select('id')
      .where('user_id', '=', userId)
      .where('owner', '=', 'user')
      .where('tool_id', '=', toolId)
      .where('parent_id', 'is', null)
      .execute();
    const [keep, ...rest] = existing;
    if (rest.length > 0) {
      await trx
        .deleteFrom('connections')
        .where(
          'id',
          'in',
          rest.map((row) => row.id),
        )
        .execute();
    }
    if (keep !== undefined) {
      await trx
        .updateTable('connections')
        .set({ encrypted_secret: encrypted, masked_secret: masked, updated_at: now })
        .where('id', '=', keep.id)
        .execute();
      return true;
    }
    await trx
      .insertInto('connections')
      .values({
        id: crypto.randomUUID(),
        user_id: userId,
        owner: 'user',
        tool_id: toolId,
        instance_name: 'Default',
        description: null,
        encrypted_secret: encrypted,
        masked_secret: masked,
        workspace_id: null,
        parent_id: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    return true;
  });
}

/**
 * The users with an own connection of `toolId`, most recently updated first (connections updated
 * in the same millisecond by descending id, so the `limit` cuts the same place every time), at
 * most `limit`.
 */
export async function recentUsersOf(
  db: Db,
  toolId: string,
  limit: number,
): Promise<{ user_id: string | null }[]> {
  return db
    .selectFrom('connections')
    .select('user_id')
    .where('tool_id', '=', toolId)
    .where('owner', '=', 'user')
    .orderBy('updated_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/**
 * The stored (encrypted) secret of connection `id`; undefined when it is gone. `forUpdate` holds
 * the row until the caller's transaction ends (PostgreSQL only).
 */
export async function connectionSecret(
  db: Db,
  id: string,
  options: { userId?: string; forUpdate?: boolean } = {},
): Promise<string | undefined> {
  const row = await db
    .selectFrom('connections')
    .select('encrypted_secret')
    .where('id', '=', id)
    .$if(options.userId !== undefined, (query) =>
      query.where('user_id', '=', options.userId as string),
    )
    .$if(options.forUpdate === true, (query) => query.forUpdate())
    .executeTakeFirst();
  return row?.encrypted_secret;
}

/** Replaces connection `id`'s secret (refreshed tokens) and its mask, as updated `now`. */
export async function storeConnectionSecret(
  db: Db,
  id: string,
  secret: { encrypted: string; masked: string; now: string },
): Promise<void> {
  await db
    .updateTable('connections')
    .set({
      encrypted_secret: secret.encrypted,
      masked_secret: secret.masked,
      updated_at: secret.now,
    })
    .where('id', '=', id)
    .execute();
}

/** The connections among `ids` (a subquery), with their tool and stored secret. */
export async function connectionsAmong(
  db: Db,
  ids: SelectQueryBuilder<DatabaseSchema, keyof DatabaseSchema, { account_id: string }>,
): Promise<{ id: string; tool_id: string; encrypted_secret: string }[]> {
  return db
    .selectFrom('connections')
    .select(['connections.id', 'connections.tool_id', 'connections.encrypted_secret'])
    .where('connections.id', 'in', ids)
    .execute();
}

/** Up to `limit` connections with an id after `after`, by id, with their owner and secret. */
export async function connectionSecretsAfter(
  db: Db,
  after: string,
  limit: number,
): Promise<{ id: string; owner: ConnectionOwner; encrypted_secret: string }[]> {
  return db
    .selectFrom('connections')
    .select(['id', 'owner', 'encrypted_secret'])
    .where('id', '>', after)
    .orderBy('id')
    .limit(limit)
    .execute();
}

/**
 * Writes `encrypted` as connection `id`'s secret if it still holds `read`; false when it changed
 * since (a running gateway wrote it). `updated_at` stays: it decides which connection serves.
 */
export async function replaceConnectionSecret(
  db: Db,
  id: string,
  encrypted: string,
  read: string,
): Promise<boolean> {
  const result = await db
    .updateTable('connections')
    .set({ encrypted_secret: encrypted })
    .where('id', '=', id)
    .where('encrypted_secret', '=', read)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
