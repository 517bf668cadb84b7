import type { Kysely } from 'kysely';
import type { GatewayMigration } from './migration.js';

/**
 * Per-user OAuth to upstream MCP servers (`auth: { kind: "oauth" }`, issue 16):
 * - `upstream_oauth_clients`: the OAuth client the gateway is at an upstream's authorization
 *   server, one per (source, issuer): registered dynamically (RFC 7591) at the first connect, or
 *   the one an admin gave at registration (`issuer` empty until the first connect learns it). The
 *   client secret is encrypted like every stored secret; the authorization server's metadata is
 *   kept for refreshes.
 * - `upstream_oauth_flows`: connects in progress, keyed by the SHA-256 of their `state`, single
 *   use, bound to the user who started them; the PKCE verifier is encrypted.
 * - `upstream_oauth_refresh_leases`: on SQLite, which instance is refreshing a connection's tokens
 *   right now (until when), so a refresh is single-flight across processes without holding the
 *   database's write lock while the authorization server answers.
 * The tokens themselves are the user's connection (`connections`, tool id `mcp.<source id>`).
 */
export const upstreamOAuth: GatewayMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('upstream_oauth_clients')
      .addColumn('source_id', 'text', (col) =>
        col.notNull().references('registry_sources.id').onDelete('cascade'),
      )
      .addColumn('issuer', 'text', (col) => col.notNull())
      .addColumn('client_id', 'text', (col) => col.notNull())
      .addColumn('encrypted_client_secret', 'text')
      .addColumn('redirect_uri', 'text', (col) => col.notNull())
      .addColumn('metadata', 'text', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('upstream_oauth_clients_pk', ['source_id', 'issuer'])
      .execute();
    await db.schema
      .createTable('upstream_oauth_flows')
      .addColumn('state_hash', 'text', (col) => col.primaryKey())
      .addColumn('user_id', 'text', (col) => col.notNull())
      .addColumn('source_id', 'text', (col) =>
        col.notNull().references('registry_sources.id').onDelete('cascade'),
      )
      .addColumn('issuer', 'text', (col) => col.notNull())
      .addColumn('encrypted_verifier', 'text', (col) => col.notNull())
      .addColumn('resource', 'text', (col) => col.notNull())
      .addColumn('return_to', 'text', (col) => col.notNull())
      .addColumn('expires_at', 'text', (col) => col.notNull())
      .execute();
    await db.schema
      .createTable('upstream_oauth_refresh_leases')
      .addColumn('connection_id', 'text', (col) =>
        col.primaryKey().references('connections.id').onDelete('cascade'),
      )
      .addColumn('until', 'text', (col) => col.notNull())
      .execute();
  },
};
