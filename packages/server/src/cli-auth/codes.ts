import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { DatabaseSchema } from '../db/index.js';
import { hashToken } from '../secrets/index.js';

/** How long a one-time code lives: the CLI exchanges it within a second or two. */
export const CODE_TTL_MS = 60_000;
/** How long a `gateway connect` flow may take (the user signs in upstream meanwhile). */
export const CONNECT_FLOW_TTL_MS = 10 * 60_000;

const CODE_PREFIX = 'gateway:cli-code:';
const FLOW_PREFIX = 'gateway:cli-connect:';

/** What a one-time code is bound to. */
const codeGrant = z.object({
  userId: z.string(),
  redirectUri: z.string(),
  state: z.string(),
  codeChallenge: z.string(),
  clientName: z.string(),
});
export type CodeGrant = z.infer<typeof codeGrant>;

/** A pending `gateway connect <provider>` flow. */
const connectFlow = z.object({
  userId: z.string(),
  redirectUri: z.string(),
  state: z.string(),
  provider: z.string(),
});
export type ConnectFlow = z.infer<typeof connectFlow>;

/**
 * Issues a one-time code for `grant`, kept in better-auth's `verification` table under the
 * SHA-256 of the code (the code itself is never stored), for {@link CODE_TTL_MS}.
 *
 * @example
 * const code = await issueCode(db, { userId, redirectUri, state, codeChallenge, clientName });
 */
export async function issueCode(
  db: Kysely<DatabaseSchema>,
  grant: CodeGrant,
  now = new Date(),
): Promise<string> {
  const code = randomBytes(32).toString('base64url');
  await put(db, `${CODE_PREFIX}${hashToken(code)}`, grant, now, CODE_TTL_MS);
  return code;
}

/**
 * Takes the grant of `code` out of the store: a code works once, even when two exchanges race
 * (only one delete finds the row). Undefined for an unknown, used or expired code.
 */
export async function redeemCode(
  db: Kysely<DatabaseSchema>,
  code: string,
  now = new Date(),
): Promise<CodeGrant | undefined> {
  return take(db, `${CODE_PREFIX}${hashToken(code)}`, codeGrant, now);
}

/** Stores a connect flow; returns its id (carried through the OAuth redirect in the callback URL). */
export async function startConnectFlow(
  db: Kysely<DatabaseSchema>,
  flow: ConnectFlow,
  now = new Date(),
): Promise<string> {
  const id = randomBytes(24).toString('base64url');
  await put(db, `${FLOW_PREFIX}${id}`, flow, now, CONNECT_FLOW_TTL_MS);
  return id;
}

/** Takes a connect flow out of the store (once). */
export async function finishConnectFlow(
  db: Kysely<DatabaseSchema>,
  id: string,
  now = new Date(),
): Promise<ConnectFlow | undefined> {
  return take(db, `${FLOW_PREFIX}${id}`, connectFlow, now);
}

async function put(
  db: Kysely<DatabaseSchema>,
  identifier: string,
  value: unknown,
  now: Date,
  ttl: number,
) {
  await db
    .insertInto('verification')
    .values({
      id: crypto.randomUUID(),
      identifier,
      value: JSON.stringify(value),
      expiresAt: new Date(now.getTime() + ttl),
      createdAt: now,
      updatedAt: now,
    })
    .execute();
}

async function take<T>(
  db: Kysely<DatabaseSchema>,
  identifier: string,
  schema: z.ZodType<T>,
  now: Date,
): Promise<T | undefined> {
  const row = await db
    .deleteFrom('verification')
    .where('identifier', '=', identifier)
    .returning(['value', 'expiresAt'])
    .executeTakeFirst();
  if (!row) return undefined;
  const expiresAt = row.expiresAt instanceof Date ? row.expiresAt : new Date(row.expiresAt);
  if (!(expiresAt.getTime() > now.getTime())) return undefined;
  try {
    const parsed = schema.safeParse(JSON.parse(row.value));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
