import { type Kysely, sql } from 'kysely';
import type { GatewayMigration } from './migration.js';

/**
 * Plugins' own OAuth providers (issue 34) go through the upstream OAuth flow under the key
 * `@<provider id>`, which names no registered source: `upstream_oauth_clients` and
 * `upstream_oauth_flows` are rebuilt, rows kept, without the foreign key of `source_id` to
 * `registry_sources` (removing a source now deletes its rows itself, as it deletes its users'
 * connections).
 */
export const pluginOAuth: GatewayMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('upstream_oauth_clients_017')
      .addColumn('source_id', 'text', (col) => col.notNull())
      .addColumn('issuer', 'text', (col) => col.notNull())
      .addColumn('client_id', 'text', (col) => col.notNull())
      .addColumn('encrypted_client_secret', 'text')
      .addColumn('redirect_uri', 'text', (col) => col.notNull())
      .addColumn('metadata', 'text', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .execute();
    await sql`INSERT INTO upstream_oauth_clients_017 (source_id, issuer, client_id, encrypted_client_secret, redirect_uri, metadata, created_at) SELECT source_id, issuer, client_id, encrypted_client_secret, redirect_uri, metadata, created_at FROM upstream_oauth_clients`.execute(
      db,
    );
    await db.schema.dropTable('upstream_oauth_clients').execute();
    await db.schema
      .alterTable('upstream_oauth_clients_017')
      .renameTo('upstream_oauth_clients')
      .execute();
    // The primary key as a unique index (SQLite cannot add a constraint to a table).
    await db.schema
      .createIndex('upstream_oauth_clients_pk')
      .unique()
      .on('upstream_oauth_clients')
      .columns(['source_id', 'issuer'])
      .execute();

    await db.schema
      .createTable('upstream_oauth_flows_017')
      .addColumn('state_hash', 'text', (col) => col.primaryKey())
      .addColumn('user_id', 'text', (col) => col.notNull())
      .addColumn('source_id', 'text', (col) => col.notNull())
      .addColumn('issuer', 'text', (col) => col.notNull())
      .addColumn('encrypted_verifier', 'text', (col) => col.notNull())
      .addColumn('resource', 'text', (col) => col.notNull())
      .addColumn('return_to', 'text', (col) => col.notNull())
      .addColumn('expires_at', 'text', (col) => col.notNull())
      .execute();
    await sql`INSERT INTO upstream_oauth_flows_017 (state_hash, user_id, source_id, issuer, encrypted_verifier, resource, return_to, expires_at) SELECT state_hash, user_id, source_id, issuer, encrypted_verifier, resource, return_to, expires_at FROM upstream_oauth_flows`.execute(
      db,
    );
    await db.schema.dropTable('upstream_oauth_flows').execute();
    await db.schema
      .alterTable('upstream_oauth_flows_017')
      .renameTo('upstream_oauth_flows')
      .execute();
  },
};
