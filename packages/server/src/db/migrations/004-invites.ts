import type { Kysely } from 'kysely';
import type { GatewayMigration } from './migration.js';

/**
 * `invites`: sign-up invites an admin hands out (`GATEWAY_SIGNUP=invite`). Only the SHA-256 of
 * the `gw_inv_` token is stored. An invite is used once: the sign-up that uses it sets `used_at`
 * in one conditional update, so two sign-ups cannot both use it. `created_by` and `used_by` are
 * plain text, like `service_accounts.created_by`, so the record outlives either user.
 */
export const invites: GatewayMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('invites')
      .addColumn('id', 'text', (col) => col.primaryKey())
      .addColumn('token_hash', 'text', (col) => col.notNull().unique())
      .addColumn('email', 'text')
      .addColumn('created_by', 'text', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('expires_at', 'text', (col) => col.notNull())
      .addColumn('used_at', 'text')
      .addColumn('used_by', 'text')
      .addColumn('used_email', 'text')
      .addColumn('revoked_at', 'text')
      .execute();
    await db.schema
      .createIndex('invites_created_at_idx')
      .on('invites')
      .column('created_at')
      .execute();
  },
};
