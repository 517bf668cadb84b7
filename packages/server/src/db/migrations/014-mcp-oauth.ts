import type { Kysely } from 'kysely';
import type { GatewayMigration } from './migration.js';

/**
 * Gateway as the authorization server of its own MCP endpoints (issue 32), owned by `mcp-oauth/`:
 * - `mcp_endpoints.kind`: `token` (a `gw_mcp_` token, as before) or `oauth` (made by a client's
 *   sign-in and consent); `oauth_client_id` names the client of an `oauth` endpoint. An `oauth`
 *   endpoint has no endpoint token: its `token_hash` is `oauth:<id>`, which no SHA-256 hex digest
 *   equals, so no `gw_mcp_` token finds it.
 * - `mcp_oauth_clients`: clients registered dynamically (RFC 7591), and Client ID Metadata
 *   Documents as fetched (cached until `expires_at`).
 * - `mcp_oauth_codes`: authorization codes by their SHA-256, single use; a used one is kept until
 *   it expires so a replay revokes what it issued.
 * - `mcp_oauth_tokens`: access (`gw_oat_`) and refresh (`gw_ort_`) tokens by their SHA-256, each
 *   bound to its endpoint (deleted with it), client and resource.
 * - `executions.endpoint_id`, `executions.client_id`: the MCP endpoint a call came through, and
 *   its OAuth client (null for calls made before, and outside MCP endpoints).
 */
export const mcpOAuth: GatewayMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('mcp_endpoints')
      .addColumn('kind', 'text', (col) => col.notNull().defaultTo('token'))
      .execute();
    await db.schema.alterTable('mcp_endpoints').addColumn('oauth_client_id', 'text').execute();
    await db.schema.alterTable('executions').addColumn('endpoint_id', 'text').execute();
    await db.schema.alterTable('executions').addColumn('client_id', 'text').execute();

    await db.schema
      .createTable('mcp_oauth_clients')
      .addColumn('client_id', 'text', (col) => col.primaryKey())
      .addColumn('kind', 'text', (col) => col.notNull())
      .addColumn('client_name', 'text', (col) => col.notNull())
      .addColumn('redirect_uris', 'text', (col) => col.notNull())
      .addColumn('application_type', 'text', (col) => col.notNull())
      .addColumn('metadata', 'text', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('last_used_at', 'text')
      .addColumn('expires_at', 'text')
      .execute();

    await db.schema
      .createTable('mcp_oauth_codes')
      .addColumn('code_hash', 'text', (col) => col.primaryKey())
      .addColumn('client_id', 'text', (col) => col.notNull())
      .addColumn('user_id', 'text', (col) =>
        col.notNull().references('user.id').onDelete('cascade'),
      )
      .addColumn('redirect_uri', 'text', (col) => col.notNull())
      .addColumn('code_challenge', 'text', (col) => col.notNull())
      .addColumn('resource', 'text', (col) => col.notNull())
      .addColumn('scope', 'text', (col) => col.notNull())
      .addColumn('expires_at', 'text', (col) => col.notNull())
      .addColumn('endpoint_id', 'text')
      .execute();

    await db.schema
      .createTable('mcp_oauth_tokens')
      .addColumn('token_hash', 'text', (col) => col.primaryKey())
      .addColumn('kind', 'text', (col) => col.notNull())
      .addColumn('endpoint_id', 'text', (col) =>
        col.notNull().references('mcp_endpoints.id').onDelete('cascade'),
      )
      .addColumn('client_id', 'text', (col) => col.notNull())
      .addColumn('resource', 'text', (col) => col.notNull())
      .addColumn('scope', 'text', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('expires_at', 'text', (col) => col.notNull())
      .addColumn('rotated_at', 'text')
      .execute();
    await db.schema
      .createIndex('mcp_oauth_tokens_endpoint_id_idx')
      .on('mcp_oauth_tokens')
      .column('endpoint_id')
      .execute();
  },
};
