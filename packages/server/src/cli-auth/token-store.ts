import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../db/index.js';
import { generateToken, hashToken, maskToken } from '../secrets/index.js';

/**
 * Issues a `gw_cli_` token for `userId` (stored as its SHA-256 hash) and returns it with its id.
 *
 * @example
 * const { id, token } = await issueCliToken(db, userId, 'gateway CLI on laptop');
 */
export async function issueCliToken(
  db: Kysely<DatabaseSchema>,
  userId: string,
  name: string,
): Promise<{ id: string; token: string }> {
  const id = crypto.randomUUID();
  const token = generateToken('cli');
  await db
    .insertInto('api_tokens')
    .values({
      id,
      kind: 'cli',
      user_id: userId,
      service_account_id: null,
      name,
      token_hash: hashToken(token),
      masked_token: maskToken(token),
      created_at: new Date().toISOString(),
      last_used_at: null,
      expires_at: null,
      revoked_at: null,
    })
    .execute();
  return { id, token };
}

/** The user's live CLI tokens, newest first. */
export async function listCliTokens(db: Kysely<DatabaseSchema>, userId: string) {
  const rows = await db
    .selectFrom('api_tokens')
    .select(['id', 'name', 'masked_token', 'created_at', 'last_used_at', 'expires_at'])
    .where('user_id', '=', userId)
    .where('kind', '=', 'cli')
    .where('revoked_at', 'is', null)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    maskedToken: row.masked_token,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    expiresAt: row.expires_at,
  }));
}

/** Revokes the user's CLI token `id` (it stops working at once); false when not theirs or gone. */
export async function revokeCliToken(
  db: Kysely<DatabaseSchema>,
  userId: string,
  id: string,
): Promise<boolean> {
  const result = await db
    .updateTable('api_tokens')
    .set({ revoked_at: new Date().toISOString() })
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .where('kind', '=', 'cli')
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
