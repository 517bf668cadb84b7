import type { Kysely } from 'kysely';
import type { GatewayMigration } from './migration.js';

/**
 * Step-up authorization at OAuth upstreams (the MCP authorization spec's scope challenge):
 * - `upstream_oauth_scopes`: the scopes an upstream said a user's token lacks (a `403` with
 *   `error="insufficient_scope"`), joined with those asked before, so that user's next connect to
 *   the source asks for them. Deleted when that connect completes, and with the user or source.
 */
export const upstreamOAuthScopes: GatewayMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('upstream_oauth_scopes')
      .addColumn('user_id', 'text', (col) =>
        col.notNull().references('user.id').onDelete('cascade'),
      )
      .addColumn('source_id', 'text', (col) =>
        col.notNull().references('registry_sources.id').onDelete('cascade'),
      )
      .addColumn('scope', 'text', (col) => col.notNull())
      .addColumn('updated_at', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('upstream_oauth_scopes_pk', ['user_id', 'source_id'])
      .execute();
  },
};
