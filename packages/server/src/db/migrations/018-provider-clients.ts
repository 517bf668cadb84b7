import type { Kysely } from 'kysely';
import type { GatewayMigration } from './migration.js';

/**
 * The clients an admin gives plugins' own OAuth providers in the web app or the API (Admin →
 * Providers, issue 34): one row per provider id, its secret encrypted like a connection's.
 * `<ID>_CLIENT_ID` and `<ID>_CLIENT_SECRET` in the environment still win over a row.
 */
export const providerClients: GatewayMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('plugin_oauth_clients')
      .addColumn('provider_id', 'text', (col) => col.primaryKey())
      .addColumn('client_id', 'text', (col) => col.notNull())
      .addColumn('encrypted_client_secret', 'text', (col) => col.notNull())
      .addColumn('updated_by', 'text', (col) => col.notNull())
      .addColumn('updated_at', 'text', (col) => col.notNull())
      .execute();
  },
};
