import type { Kysely, Selectable } from 'kysely';
import type { DatabaseSchema } from '../db/index.js';
import { generateToken, hashToken } from '../secrets/index.js';
import type { InvitesTable } from './tables.js';

/** Where an invite stands. */
export type InviteStatus = 'pending' | 'used' | 'expired' | 'revoked';

/** An invite as the API shows it: never its token. */
export interface Invite {
  id: string;
  email: string | null;
  createdBy: string;
  createdAt: string;
  expiresAt: string;
  status: InviteStatus;
  usedAt: string | null;
  usedBy: string | null;
}

/** The shape of a `gw_inv_` token; anything else is not looked up. */
export const INVITE_TOKEN = /^gw_inv_[A-Za-z0-9]{40}$/;

type InviteRow = Selectable<InvitesTable>;

function statusOf(row: InviteRow, now: string): InviteStatus {
  if (row.revoked_at !== null) return 'revoked';
  if (row.used_at !== null) return 'used';
  return row.expires_at <= now ? 'expired' : 'pending';
}

function toInvite(row: InviteRow, now = new Date().toISOString()): Invite {
  return {
    id: row.id,
    email: row.email,
    createdBy: row.created_by,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    status: statusOf(row, now),
    usedAt: row.used_at,
    usedBy: row.used_by,
  };
}

/**
 * Makes an invite valid for `expiresInDays` days, for `email` only when given. Returns it with
 * its `gw_inv_` token, which exists in plain text only in this answer.
 *
 * @example
 * const { invite, token } = await createInvite(db, { email: 'ada@example.com', expiresInDays: 7, createdBy });
 */
export async function createInvite(
  db: Kysely<DatabaseSchema>,
  input: { email?: string | undefined; expiresInDays: number; createdBy: string },
): Promise<{ invite: Invite; token: string }> {
  const token = generateToken('inv');
  const now = new Date();
  const row: InviteRow = {
    id: crypto.randomUUID(),
    token_hash: hashToken(token),
    email: input.email?.toLowerCase() ?? null,
    created_by: input.createdBy,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + input.expiresInDays * 86_400_000).toISOString(),
    used_at: null,
    used_by: null,
    used_email: null,
    revoked_at: null,
  };
  await db.insertInto('invites').values(row).execute();
  return { invite: toInvite(row), token };
}

/** Every invite, newest first. */
export async function listInvites(db: Kysely<DatabaseSchema>): Promise<Invite[]> {
  const rows = await db
    .selectFrom('invites')
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  const now = new Date().toISOString();
  return rows.map((row) => toInvite(row, now));
}

/**
 * Revokes invite `id` so its link stops working. `missing` for an unknown or already revoked
 * invite, `used` for one already used (revoking it would change nothing).
 */
export async function revokeInvite(
  db: Kysely<DatabaseSchema>,
  id: string,
): Promise<'revoked' | 'missing' | 'used'> {
  const result = await db
    .updateTable('invites')
    .set({ revoked_at: new Date().toISOString() })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) > 0) return 'revoked';
  const row = await db
    .selectFrom('invites')
    .select(['used_at', 'revoked_at'])
    .where('id', '=', id)
    .executeTakeFirst();
  return row !== undefined && row.revoked_at === null && row.used_at !== null ? 'used' : 'missing';
}

/** The invite a token belongs to, whatever its status; undefined for an unknown token. */
export async function findInvite(
  db: Kysely<DatabaseSchema>,
  token: string,
): Promise<Invite | undefined> {
  if (!INVITE_TOKEN.test(token)) return undefined;
  const row = await db
    .selectFrom('invites')
    .selectAll()
    .where('token_hash', '=', hashToken(token))
    .executeTakeFirst();
  return row && toInvite(row);
}

/**
 * Uses the invite of `token` for a new account with `email`, in one conditional update: of two
 * sign-ups racing for one invite, exactly one changes the row. Returns the invite's id, or why
 * it cannot be used (without saying which address a bound invite is for).
 */
export async function consumeInvite(
  db: Kysely<DatabaseSchema>,
  token: string,
  email: string,
  /** Whether the address is verified: an invite made for an address takes only a verified one. */
  emailVerified = true,
): Promise<
  | { ok: true; id: string }
  | { ok: false; reason: 'invalid' | 'email_mismatch' | 'email_unverified' }
> {
  if (!INVITE_TOKEN.test(token)) return { ok: false, reason: 'invalid' };
  const address = email.trim().toLowerCase();
  const now = new Date().toISOString();
  const tokenHash = hashToken(token);
  const result = await db
    .updateTable('invites')
    .set({ used_at: now, used_email: address })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .where((eb) =>
      emailVerified
        ? eb.or([eb('email', 'is', null), eb('email', '=', address)])
        : eb('email', 'is', null),
    )
    .executeTakeFirst();
  const row = await db
    .selectFrom('invites')
    .select(['id', 'email', 'used_at', 'used_email', 'revoked_at', 'expires_at'])
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
  if (row === undefined) return { ok: false, reason: 'invalid' };
  if (Number(result.numUpdatedRows) > 0) return { ok: true, id: row.id };
  const usable = row.used_at === null && row.revoked_at === null && row.expires_at > now;
  if (!usable) return { ok: false, reason: 'invalid' };
  return { ok: false, reason: row.email === address ? 'email_unverified' : 'email_mismatch' };
}

/** Records which account an invite created (after better-auth has made it). */
export async function recordInviteUser(
  db: Kysely<DatabaseSchema>,
  inviteId: string,
  userId: string,
): Promise<void> {
  await db.updateTable('invites').set({ used_by: userId }).where('id', '=', inviteId).execute();
}
