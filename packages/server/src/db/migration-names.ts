/**
 * The names of the gateway's schema steps (migrations/index.ts), in the order they apply: all a
 * start on an up-to-date database needs of them (issue 37). The steps themselves, with kysely's
 * migrator, load only when there is something to apply (migrate.ts), so a migrated database's
 * start neither loads nor deserializes them. A step added to migrations/index.ts is added here
 * too; migration-names.test.ts fails until it is.
 */
export const MIGRATION_NAMES: readonly string[] = [
  '001-initial',
  '002-rate-limit',
  '003-mcp-rounds',
  '004-invites',
  '005-oauth-reconnect',
  '006-upstream-sources',
  '007-upstream-oauth',
  '008-schema-state',
  '009-mcp-sessions',
  '010-refresh-leases',
  '011-upstream-oauth-scopes',
  '013-upstream-capabilities',
  '014-mcp-oauth',
  '015-endpoint-toolsets',
  '016-execution-indexes',
  '017-plugin-oauth',
  '018-provider-clients',
  '019-open-executions-id',
];
