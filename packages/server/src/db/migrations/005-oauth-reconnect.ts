import type { Kysely } from 'kysely';
import type { GatewayMigration } from './migration.js';

/**
 * `oauth_reconnect`: OAuth accounts whose provider refused a refresh (`invalid_grant`: revoked,
 * expired or already spent). The gateway sends that refresh token no more, and the web app and
 * CLI offer Reconnect. A mark holds while the account keeps the access token it had then
 * (`access_token_hash`, the SHA-256 of the stored ciphertext): reconnecting stores a new one,
 * which makes the mark stale.
 */
export const oauthReconnect: GatewayMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('oauth_reconnect')
      .addColumn('account_id', 'text', (col) => col.primaryKey())
      .addColumn('user_id', 'text', (col) => col.notNull())
      .addColumn('provider_id', 'text', (col) => col.notNull())
      .addColumn('access_token_hash', 'text', (col) => col.notNull())
      .addColumn('reason', 'text', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .execute();
    await db.schema
      .createIndex('oauth_reconnect_user_idx')
      .on('oauth_reconnect')
      .column('user_id')
      .execute();
  },
};
