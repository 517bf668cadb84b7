import type { Kysely } from 'kysely';
import type { GatewayMigration } from './migration.js';

/**
 * Upstream MCP servers as sources (issue 16):
 * - `registry_sources.upstream`: for a `type: "mcp"` row, its JSON `{ url, auth, approvalRequired }`
 *   (`plugin_id` is then empty: kept NOT NULL rather than rebuilding the table on SQLite);
 * - `upstream_tools`: the tool list each upstream last answered, as JSON, so every instance serves
 *   it without asking the upstream, and `tools/list` never waits on one.
 */
export const upstreamSources: GatewayMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('registry_sources').addColumn('upstream', 'text').execute();
    await db.schema
      .createTable('upstream_tools')
      .addColumn('source_id', 'text', (col) =>
        col.primaryKey().references('registry_sources.id').onDelete('cascade'),
      )
      .addColumn('tools', 'text', (col) => col.notNull())
      .addColumn('fetched_at', 'text', (col) => col.notNull())
      .execute();
  },
};
