import type { Kysely } from 'kysely';
import { cliTokenExpiry } from '../cli-auth/token-expiry.js';
import type { DatabaseSchema } from '../db/index.js';
import { generateToken, hashToken, maskToken } from '../secrets/index.js';

/** How long a CLI token lives, and the clock it is issued by. */
export interface CliTokenLifetime {
  /** Days until it stops working (`GATEWAY_CLI_TOKEN_DAYS`). */
  days: number;
  /** When it is issued. Default now. */
  now?: Date;
}

/**
 * Issues a `gw_cli_` token for `userId` (stored as its SHA-256 hash) that stops working
 * `lifetime.days` after it is issued, and returns it with its id and expiry.
 *
 * @example
 * const { id, token, expiresAt } = await issueCliToken(db, userId, 'gateway CLI on laptop', { days: 90 });
 */
export async function issueCliToken(
  db: Kysely<DatabaseSchema>,
  userId: string,
  name: string,
  lifetime: CliTokenLifetime,
): Promise<{ id: string; token: string; expiresAt: string }> {
  const id = crypto.randomUUID();
  const token = generateToken('cli');
  const issuedAt = lifetime.now ?? new Date();
  const expiresAt = cliTokenExpiry(issuedAt, lifetime.days);
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
      created_at: issuedAt.toISOString(),
      last_used_at: null,
      expires_at: expiresAt,
      revoked_at: null,
    })
    .execute();
  return { id, token, expiresAt };
}

/**
 * The user's live CLI tokens (neither revoked nor expired), newest first. A token issued before
 * tokens expired has a null `expiresAt` and works until revoked.
 */
export async function listCliTokens(db: Kysely<DatabaseSchema>, userId: string, now = new Date()) {
  const rows = await db
    .selectFrom('api_tokens')
    .select(['id', 'name', 'masked_token', 'created_at', 'last_used_at', 'expires_at'])
    .where('user_id', '=', userId)
    .where('kind', '=', 'cli')
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now.toISOString())]))
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
