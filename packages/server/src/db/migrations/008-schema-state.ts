import type { Kysely } from 'kysely';
import type { GatewayMigration } from './migration.js';

/**
 * `schema_state`: what start-up needs to know of the schema beyond the migrations applied, one
 * row per part (issue 17 item 5). `better-auth` holds the fingerprint of the better-auth schema
 * last migrated to, so a start that finds it unchanged skips better-auth's schema read.
 */
export const schemaState: GatewayMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('schema_state')
      .addColumn('name', 'text', (col) => col.primaryKey())
      .addColumn('value', 'text', (col) => col.notNull())
      .execute();
  },
};
