import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../db/index.js';
import { generateToken, hashToken, maskToken } from '../secrets/index.js';

/** A new service account and its key (the only time the key exists in plain text). */
export interface CreatedServiceAccount {
  id: string;
  name: string;
  roleId: string;
  key: string;
  createdAt: string;
}

/**
 * Creates a service account with role `roleId` and issues its `gw_sa_` key (stored hashed, tied
 * to the admin `createdBy`). Undefined when the role does not exist.
 *
 * @example
 * const account = await createServiceAccount(db, { name: 'ci', roleId: 'member', createdBy: adminId });
 */
export async function createServiceAccount(
  db: Kysely<DatabaseSchema>,
  input: { name: string; roleId: string; createdBy: string },
): Promise<CreatedServiceAccount | undefined> {
  return db.transaction().execute(async (trx) => {
    const role = await trx
      .selectFrom('roles')
      .select('id')
      .where('id', '=', input.roleId)
      .executeTakeFirst();
    if (!role) return undefined;
    const id = crypto.randomUUID();
    const createdAt = new Date().toISOString();
    const key = generateToken('sa');
    await trx
      .insertInto('service_accounts')
      .values({
        id,
        name: input.name,
        role_id: input.roleId,
        created_by: input.createdBy,
        created_at: createdAt,
      })
      .execute();
    await trx
      .insertInto('api_tokens')
      .values({
        id: crypto.randomUUID(),
        kind: 'service_account',
        user_id: input.createdBy,
        service_account_id: id,
        name: input.name,
        token_hash: hashToken(key),
        masked_token: maskToken(key),
        created_at: createdAt,
        last_used_at: null,
        expires_at: null,
        revoked_at: null,
      })
      .execute();
    return { id, name: input.name, roleId: input.roleId, key, createdAt };
  });
}

/** Every service account with its live key's mask and last use, oldest first. */
export async function listServiceAccounts(db: Kysely<DatabaseSchema>) {
  const accounts = await db
    .selectFrom('service_accounts')
    .selectAll()
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  const keys = await db
    .selectFrom('api_tokens')
    .select(['service_account_id', 'masked_token', 'last_used_at', 'created_at'])
    .where('kind', '=', 'service_account')
    .where('revoked_at', 'is', null)
    // The last one is the latest; of one millisecond, the greatest id (as lists order ties).
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  const latest = new Map<string, { masked_token: string; last_used_at: string | null }>();
  for (const key of keys)
    if (key.service_account_id !== null) latest.set(key.service_account_id, key);
  return accounts.map((account) => {
    const key = latest.get(account.id);
    return {
      id: account.id,
      name: account.name,
      roleId: account.role_id,
      createdBy: account.created_by,
      createdAt: account.created_at,
      maskedKey: key?.masked_token ?? null,
      lastUsedAt: key?.last_used_at ?? null,
    };
  });
}

/** Deletes service account `id`; its keys go with it (and stop working at once). */
export async function deleteServiceAccount(
  db: Kysely<DatabaseSchema>,
  id: string,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    await trx.deleteFrom('api_tokens').where('service_account_id', '=', id).execute();
    const result = await trx.deleteFrom('service_accounts').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  });
}

/** The role of service account `id`, or undefined when there is no such account. */
export async function serviceAccountRole(
  db: Kysely<DatabaseSchema>,
  id: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('service_accounts')
    .select('role_id')
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.role_id;
}

/**
 * A service account's name and role; undefined when it does not exist.
 *
 * @example
 * const account = await findServiceAccount(db, serviceAccountId);
 */
export async function findServiceAccount(
  db: Kysely<DatabaseSchema>,
  id: string,
): Promise<{ name: string; roleId: string } | undefined> {
  const row = await db
    .selectFrom('service_accounts')
    .select(['name', 'role_id'])
    .where('id', '=', id)
    .executeTakeFirst();
  return row === undefined ? undefined : { name: row.name, roleId: row.role_id };
}
