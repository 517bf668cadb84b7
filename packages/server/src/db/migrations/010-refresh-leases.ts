import type { Kysely } from 'kysely';
import type { GatewayMigration } from './migration.js';

/**
 * One table of refresh leases for every kind of OAuth token the gateway refreshes (on SQLite,
 * `db/refresh-lease.ts`): the sign-in providers' tokens of better-auth's `account` rows now take
 * a lease too, instead of holding SQLite's write lock while the provider answers. Replaces
 * `upstream_oauth_refresh_leases` (step 007), whose rows were only ever held for the length of a
 * refresh, so none are carried over.
 * - `refresh_leases`: which token is being refreshed right now, by its key (`account:<id>`,
 *   `upstream:<connection id>`), until when.
 */
export const refreshLeases: GatewayMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('refresh_leases')
      .addColumn('key', 'text', (col) => col.primaryKey())
      .addColumn('until', 'text', (col) => col.notNull())
      .execute();
    await db.schema.dropTable('upstream_oauth_refresh_leases').ifExists().execute();
  },
};
