import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../db/index.js';
import type { SecretBox } from '../secrets/index.js';

/** A client an admin gave a plugin's own OAuth provider, as listed: never its secret. */
export interface StoredProviderClient {
  providerId: string;
  clientId: string;
  updatedBy: string;
  updatedAt: string;
}

/** What rekey did to the stored provider clients. */
export interface ProviderClientRekey {
  rewritten: number;
  current: number;
  /** Provider ids whose secret no configured auth secret opens. */
  unreadable: string[];
}

/**
 * The clients admins gave plugins' own OAuth providers (Admin → Providers), the one owner of
 * `plugin_oauth_clients`. Secrets are encrypted by the connections' secret box, so `rekey` and
 * `GATEWAY_PREVIOUS_AUTH_SECRETS` apply to them as to connections; only {@link client} returns
 * one, for the connect flow.
 *
 * @example
 * const store = new ProviderClientStore(db, secrets);
 * await store.set('notion', { clientId: 'abc', clientSecret: 's3cret' }, adminId);
 * (await store.client('notion'))?.clientSecret; // 's3cret'
 */
export class ProviderClientStore {
  readonly #db: Kysely<DatabaseSchema>;
  readonly #secrets: Pick<SecretBox, 'encrypt' | 'decrypt' | 'open'>;

  constructor(
    db: Kysely<DatabaseSchema>,
    secrets: Pick<SecretBox, 'encrypt' | 'decrypt' | 'open'>,
  ) {
    this.#db = db;
    this.#secrets = secrets;
  }

  /** Every stored client, by provider id, without secrets. */
  async list(): Promise<StoredProviderClient[]> {
    const rows = await this.#db
      .selectFrom('plugin_oauth_clients')
      .select(['provider_id', 'client_id', 'updated_by', 'updated_at'])
      .orderBy('provider_id')
      .execute();
    return rows.map((row) => ({
      providerId: row.provider_id,
      clientId: row.client_id,
      updatedBy: row.updated_by,
      updatedAt: row.updated_at,
    }));
  }

  /**
   * The client of `providerId` with its secret decrypted, for the connect flow and refreshes.
   *
   * @throws SecretDecryptError when no configured auth secret opens the stored secret.
   */
  async client(
    providerId: string,
  ): Promise<{ clientId: string; clientSecret: string } | undefined> {
    const row = await this.#db
      .selectFrom('plugin_oauth_clients')
      .select(['client_id', 'encrypted_client_secret'])
      .where('provider_id', '=', providerId)
      .executeTakeFirst();
    if (row === undefined) return undefined;
    return {
      clientId: row.client_id,
      clientSecret: this.#secrets.decrypt(row.encrypted_client_secret),
    };
  }

  /**
   * Sets `providerId`'s client; without `clientSecret`, the stored secret is kept (undefined
   * when there is none to keep).
   */
  async set(
    providerId: string,
    input: { clientId: string; clientSecret?: string | undefined },
    by: string,
  ): Promise<StoredProviderClient | undefined> {
    const updatedAt = new Date().toISOString();
    if (input.clientSecret === undefined) {
      const result = await this.#db
        .updateTable('plugin_oauth_clients')
        .set({ client_id: input.clientId, updated_by: by, updated_at: updatedAt })
        .where('provider_id', '=', providerId)
        .executeTakeFirst();
      if (result.numUpdatedRows === 0n) return undefined;
    } else {
      const row = {
        client_id: input.clientId,
        encrypted_client_secret: this.#secrets.encrypt(input.clientSecret),
        updated_by: by,
        updated_at: updatedAt,
      };
      await this.#db
        .insertInto('plugin_oauth_clients')
        .values({ provider_id: providerId, ...row })
        .onConflict((oc) => oc.column('provider_id').doUpdateSet(row))
        .execute();
    }
    return { providerId, clientId: input.clientId, updatedBy: by, updatedAt };
  }

  /** Forgets `providerId`'s client; whether there was one. */
  async remove(providerId: string): Promise<boolean> {
    const result = await this.#db
      .deleteFrom('plugin_oauth_clients')
      .where('provider_id', '=', providerId)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  /**
   * Rewrites every secret readable only with a previous auth secret under the current one (for
   * `gateway-server rekey`); a row changed since it was read is left to the change.
   */
  async rekey(): Promise<ProviderClientRekey> {
    const report: ProviderClientRekey = { rewritten: 0, current: 0, unreadable: [] };
    const rows = await this.#db
      .selectFrom('plugin_oauth_clients')
      .select(['provider_id', 'encrypted_client_secret'])
      .orderBy('provider_id')
      .execute();
    for (const row of rows) {
      let opened: ReturnType<SecretBox['open']>;
      try {
        opened = this.#secrets.open(row.encrypted_client_secret);
      } catch {
        report.unreadable.push(row.provider_id);
        continue;
      }
      if (opened.current) {
        report.current += 1;
        continue;
      }
      const result = await this.#db
        .updateTable('plugin_oauth_clients')
        .set({ encrypted_client_secret: this.#secrets.encrypt(opened.plain) })
        .where('provider_id', '=', row.provider_id)
        .where('encrypted_client_secret', '=', row.encrypted_client_secret)
        .executeTakeFirst();
      if (result.numUpdatedRows > 0n) report.rewritten += 1;
      else report.current += 1;
    }
    return report;
  }
}
