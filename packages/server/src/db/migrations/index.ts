import type { GatewayMigration } from './migration.js';

/**
 * Every schema step, by name, applied in name order: the one list of them. Listed here rather
 * than read from a folder so the bundled server carries them. Each step's module loads only when
 * the steps are to run (`loadMigrations`): a start on a migrated database reads this list's names
 * alone (`migrate()`), and neither loads nor deserializes a step (issue 37; `start-up.test.ts`).
 * Add a step as `NNN-what.ts` and a line below; never edit or rename a step that has shipped:
 * databases record the names they have applied.
 */
export const MIGRATIONS: Readonly<Record<string, () => Promise<GatewayMigration>>> = {
  '001-initial': async () => (await import('./001-initial.js')).initial,
  '002-rate-limit': async () => (await import('./002-rate-limit.js')).rateLimit,
  '003-mcp-rounds': async () => (await import('./003-mcp-rounds.js')).mcpRounds,
  '004-invites': async () => (await import('./004-invites.js')).invites,
  '005-oauth-reconnect': async () => (await import('./005-oauth-reconnect.js')).oauthReconnect,
  '006-upstream-sources': async () => (await import('./006-upstream-sources.js')).upstreamSources,
  '007-upstream-oauth': async () => (await import('./007-upstream-oauth.js')).upstreamOAuth,
  '008-schema-state': async () => (await import('./008-schema-state.js')).schemaState,
  '009-mcp-sessions': async () => (await import('./009-mcp-sessions.js')).mcpSessions,
  '010-refresh-leases': async () => (await import('./010-refresh-leases.js')).refreshLeases,
  '011-upstream-oauth-scopes': async () =>
    (await import('./011-upstream-oauth-scopes.js')).upstreamOAuthScopes,
  '013-upstream-capabilities': async () =>
    (await import('./013-upstream-capabilities.js')).upstreamCapabilities,
  '014-mcp-oauth': async () => (await import('./014-mcp-oauth.js')).mcpOAuth,
  '015-endpoint-toolsets': async () =>
    (await import('./015-endpoint-toolsets.js')).endpointToolsets,
  '016-execution-indexes': async () =>
    (await import('./016-execution-indexes.js')).executionIndexes,
  '017-plugin-oauth': async () => (await import('./017-plugin-oauth.js')).pluginOAuth,
  '018-provider-clients': async () => (await import('./018-provider-clients.js')).providerClients,
  '019-open-executions-id': async () =>
    (await import('./019-open-executions-id.js')).openExecutionsId,
};

/**
 * Every step of {@link MIGRATIONS}, loaded, by name.
 *
 * @example
 * const steps = await loadMigrations();
 */
export async function loadMigrations(): Promise<Record<string, GatewayMigration>> {
  const steps = await Promise.all(
    Object.entries(MIGRATIONS).map(async ([name, load]) => [name, await load()] as const),
  );
  return Object.fromEntries(steps);
}

export type { GatewayMigration } from './migration.js';
