import type { Kysely } from 'kysely';
import type { GatewayMigration } from './migration.js';

/**
 * What an MCP endpoint serves (issue 33), on every kind of endpoint:
 * - `mcp_endpoints.tools`: JSON array of tool-path patterns in the role grammar; the endpoint
 *   serves the caller's role's tools that one of them matches. Null: the whole role, as before.
 * - `mcp_endpoints.mode`: `tools` (its tools are listed) or `discovery` (three meta-tools
 *   `gateway.search_tools`, `gateway.describe_tools` and `gateway.call_tool` are listed instead).
 */
export const endpointToolsets: GatewayMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('mcp_endpoints').addColumn('tools', 'text').execute();
    await db.schema
      .alterTable('mcp_endpoints')
      .addColumn('mode', 'text', (col) => col.notNull().defaultTo('tools'))
      .execute();
  },
};
