import { initial } from './001-initial.js';
import { rateLimit } from './002-rate-limit.js';
import { mcpRounds } from './003-mcp-rounds.js';
import { invites } from './004-invites.js';
import { oauthReconnect } from './005-oauth-reconnect.js';
import { upstreamSources } from './006-upstream-sources.js';
import { upstreamOAuth } from './007-upstream-oauth.js';
import { schemaState } from './008-schema-state.js';
import { mcpSessions } from './009-mcp-sessions.js';
import { refreshLeases } from './010-refresh-leases.js';
import { upstreamOAuthScopes } from './011-upstream-oauth-scopes.js';
import { upstreamCapabilities } from './013-upstream-capabilities.js';
import { mcpOAuth } from './014-mcp-oauth.js';
import { endpointToolsets } from './015-endpoint-toolsets.js';
import { executionIndexes } from './016-execution-indexes.js';
import { pluginOAuth } from './017-plugin-oauth.js';
import { providerClients } from './018-provider-clients.js';
import { openExecutionsId } from './019-open-executions-id.js';
import type { GatewayMigration } from './migration.js';

/**
 * Every schema step, by name, applied in name order. Listed here rather than read from a folder
 * so the bundled server carries them. Add a step as `NNN-what.ts` and a line below; never edit
 * or rename a step that has shipped: databases record the names they have applied.
 */
export const migrations: Readonly<Record<string, GatewayMigration>> = {
  '001-initial': initial,
  '002-rate-limit': rateLimit,
  '003-mcp-rounds': mcpRounds,
  '004-invites': invites,
  '005-oauth-reconnect': oauthReconnect,
  '006-upstream-sources': upstreamSources,
  '007-upstream-oauth': upstreamOAuth,
  '008-schema-state': schemaState,
  '009-mcp-sessions': mcpSessions,
  '010-refresh-leases': refreshLeases,
  '011-upstream-oauth-scopes': upstreamOAuthScopes,
  '013-upstream-capabilities': upstreamCapabilities,
  '014-mcp-oauth': mcpOAuth,
  '015-endpoint-toolsets': endpointToolsets,
  '016-execution-indexes': executionIndexes,
  '017-plugin-oauth': pluginOAuth,
  '018-provider-clients': providerClients,
  '019-open-executions-id': openExecutionsId,
};

export type { GatewayMigration } from './migration.js';
