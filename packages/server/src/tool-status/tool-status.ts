import type { AuthProvider } from '@gateway/sdk';
import type { GatewayAuth } from '../auth/create-auth.js';
import type { Env } from '../config/env.js';
import { serverApiKey } from '../config/env.js';
import { listUserConnections } from '../connections/store.js';
import { listTeamConnections } from '../connections/team-store.js';
import { OAUTH_PROVIDERS } from '../connectors/index.js';
import type { GatewayDatabase } from '../db/database.js';
import type { PolicyService } from '../policy/policy-service.js';
import type { MountedTool } from '../registry/index.js';
import type { PluginCatalog } from '../registry/plugin-catalog.js';
import { oauthToolId, pluginOAuthKey } from '../upstream/oauth-hooks.js';
import type { UpstreamService } from '../upstream/upstream-service.js';
import type { UpstreamOAuthService } from '../upstream-oauth/service.js';
import { providersNeedingReconnect } from '../vending/index.js';
import { linkedProviderIds } from '../vending/linked-accounts.js';
import type { ProviderStatus, ToolStatus } from './schemas.js';

const STATE_OF_SOURCE = {
  connection: 'you',
  oauth: 'you',
  team_connection: 'team',
  api_key: 'server',
} as const;

type StatusServices = {
  database: GatewayDatabase;
  env: Env;
  plugins: PluginCatalog;
  policy: PolicyService;
  auth: GatewayAuth;
  upstreams: UpstreamService;
  upstreamOAuth: UpstreamOAuthService;
};

/**
 * The tools `userId`'s role allows, grouped by plugin, with the state of each auth provider they
 * need, decided in token-vending order: the user's own connection, a team connection, the user's
 * linked OAuth account (unless its provider refused to renew it: then it needs a reconnect), the
 * server's `<ID>_API_KEY`.
 *
 * @throws Refusal 404 when the user does not exist.
 * @example
 * const { plugins } = await toolStatus(services, userId);
 */
export async function toolStatus(services: StatusServices, userId: string): Promise<ToolStatus> {
  const { db } = services.database;
  const [resolution, own, team, accounts, stale, upstreamStale, moreScope, ownConfigured] =
    await Promise.all([
      services.policy.resolveForUser(userId),
      listUserConnections(db, userId),
      listTeamConnections(db),
      linkedProviderIds(db, userId),
      providersNeedingReconnect(db, userId),
      services.upstreamOAuth.tokens.needingReconnect(userId),
      services.upstreamOAuth.moreScopeWanted(userId),
      services.upstreamOAuth.configuredPluginProviders(),
    ]);
  const credentials: UserCredentials = {
    services,
    own,
    linked: new Set(accounts.map((account) => account.providerId)),
    configured: new Set(services.auth.providers.map((provider) => provider.id)),
    teamTools: new Set(team.map((row) => row.tool_id)),
    stale,
    upstreamStale,
    moreScope,
    ownConfigured,
  };
  const plugins = [...byPlugin(resolution.tools)].flatMap(([pluginId, tools]) =>
    pluginStatus(credentials, pluginId, tools),
  );
  // An oauth source nobody has connected yet lists no tools, so no role can show it: it is
  // shown to everyone with its Connect button, and its tools appear after the first connect.
  for (const source of services.upstreams.oauthSources()) {
    if (source.toolsFetchedAt !== null || plugins.some((plugin) => plugin.id === source.id)) {
      continue;
    }
    const id = oauthToolId(source.id);
    const entry: AuthProvider = { id, type: 'oauth2', provider: id, scopes: [] };
    plugins.push({
      id: source.id,
      name: source.id,
      description: `Tools of the upstream MCP server registered as "${source.id}": connect your account there to list them`,
      tools: [],
      providers: [providerStatus(credentials, entry, source.id, true)],
    });
  }
  plugins.sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
  return { userId, roleId: resolution.role.id, plugins };
}

/** What a user has to authenticate tools with, read once for every provider's status. */
interface UserCredentials {
  services: StatusServices;
  /** The user's own connections. */
  own: Awaited<ReturnType<typeof listUserConnections>>;
  /** The sign-in providers the user linked an account of. */
  linked: Set<string>;
  /** The sign-in providers configured on this gateway. */
  configured: Set<string>;
  /** The tools with a team connection. */
  teamTools: Set<string>;
  /** The sign-in providers that refused to renew the user's account. */
  stale: Set<string>;
  /** The OAuth upstreams (and plugins' own providers) that refused the user's tokens. */
  upstreamStale: Set<string>;
  /** The scopes upstreams asked the user for, by connection tool id (step-up). */
  moreScope: Map<string, string>;
  /** The plugins' own OAuth providers whose client the operator set. */
  ownConfigured: Set<string>;
}

/** The tools by plugin, in the order they come. */
function byPlugin(tools: readonly MountedTool[]): Map<string, MountedTool[]> {
  const grouped = new Map<string, MountedTool[]>();
  for (const tool of tools) {
    const list = grouped.get(tool.pluginId) ?? [];
    list.push(tool);
    grouped.set(tool.pluginId, list);
  }
  return grouped;
}

/** One plugin's tools and its providers' states; none for a plugin no longer loaded. */
function pluginStatus(
  credentials: UserCredentials,
  pluginId: string,
  tools: MountedTool[],
): ToolStatus['plugins'] {
  // An upstream MCP source's tools have no plugin: its source says what they may be vended.
  const first = tools[0];
  const plugin =
    credentials.services.plugins.plugin(pluginId) ??
    (first === undefined || first.source.kind !== 'mcp'
      ? undefined
      : {
          id: pluginId,
          name: pluginId,
          description: `Tools of the upstream MCP server registered as "${pluginId}"`,
          authProviders: first.source.credentials.authProviders,
        });
  if (plugin === undefined) return [];
  const needed = new Set(tools.flatMap((tool) => tool.authProvider ?? []));
  // A tool without `authProvider` picks one at run time among all its plugin declares, so the
  // card shows them all (issue 39: it said "No credentials needed" while calls said Reconnect).
  const picksAtRunTime = tools.some((tool) => tool.authProvider === undefined);
  const entries = plugin.authProviders.filter((entry) => picksAtRunTime || needed.has(entry.id));
  // Token vending serves a tool every provider its plugin declares, and no other.
  const allowedProviders = plugin.authProviders.map((entry) => entry.id);
  return [
    {
      id: plugin.id,
      name: plugin.name,
      description: plugin.description,
      tools: tools.map((tool) => ({
        path: tool.path,
        name: tool.name,
        description: tool.description,
        destructive: tool.destructive,
        authProvider: tool.authProvider ?? null,
        allowedProviders,
      })),
      providers: entries.map((entry) =>
        providerStatus(credentials, entry, plugin.name, entries.length === 1),
      ),
    },
  ];
}

/** The state of one auth provider for the user, decided in token-vending order. */
function providerStatus(
  credentials: UserCredentials,
  entry: AuthProvider,
  pluginName: string,
  single: boolean,
): ProviderStatus {
  const { services } = credentials;
  const connections = credentials.own
    .filter((row) => row.tool_id === entry.id)
    .map((row) => ({
      id: row.id,
      instanceName: row.instance_name,
      maskedSecret: row.masked_secret,
      parentId: row.parent_id,
      workspaceId: row.workspace_id,
      updatedAt: row.updated_at,
    }));
  // An upstream MCP source's OAuth (`mcp.<id>`): the source is its configuration, and its
  // tokens are the user's own connection, which the upstream may have refused.
  const upstreamOAuth = entry.provider?.startsWith('mcp.') === true;
  // A plugin's own OAuth provider (`@<id>` in the connect flow): connected like an upstream's,
  // once the operator set its client.
  const ownOAuth = entry.type === 'oauth2' && entry.oauth !== undefined;
  const signIn = entry.provider ?? entry.id;
  const refused = (upstreamOAuth || ownOAuth) && credentials.upstreamStale.has(entry.id);
  const oauth =
    entry.type !== 'oauth2'
      ? null
      : upstreamOAuth || ownOAuth
        ? {
            configured: ownOAuth ? credentials.ownConfigured.has(entry.id) : true,
            linked: connections.some((row) => row.parentId === null),
            needsReconnect: refused,
            ...withMoreScope(credentials.moreScope.get(entry.id)),
          }
        : {
            configured: credentials.configured.has(signIn),
            linked: credentials.linked.has(signIn),
            needsReconnect: credentials.stale.has(signIn),
          };
  // Only the user's own token is ever sent to an oauth upstream.
  const teamConnected = !upstreamOAuth && credentials.teamTools.has(entry.id);
  const serverKey = !upstreamOAuth && serverApiKey(services.env, entry.id) !== undefined;
  let source: ProviderStatus['source'] = null;
  if (refused) source = null;
  else if (connections.some((row) => row.parentId === null)) source = 'connection';
  else if (teamConnected) source = 'team_connection';
  // A refused account serves nothing until reconnected (token vending skips it).
  else if (oauth?.linked && !oauth.needsReconnect) source = 'oauth';
  else if (serverKey) source = 'api_key';
  const state =
    source !== null ? STATE_OF_SOURCE[source] : oauth?.needsReconnect ? 'reconnect' : 'none';
  return {
    id: entry.id,
    // A configured provider's name as set (`<P>_DISPLAY_NAME` for a generic slot).
    name:
      (entry.type === 'oauth2'
        ? services.auth.providers.find((provider) => provider.id === entry.provider)?.name
        : undefined) ?? providerName(entry, pluginName, single),
    type: entry.type,
    upstream: ownOAuth ? pluginOAuthKey(entry.id) : signIn,
    state,
    source,
    oauth,
    teamConnected,
    serverKey,
    connections,
  };
}

/** The shipped OAuth provider's name, else the plugin's (its only provider), else the id. */
export function providerName(entry: AuthProvider, pluginName: string, single: boolean): string {
  if (entry.type === 'oauth2') {
    const known = OAUTH_PROVIDERS.find((provider) => provider.id === entry.provider);
    if (known !== undefined) return known.name;
  }
  return single ? pluginName : entry.id;
}

/** `moreScope` of an upstream's OAuth status, when a tool of it asked for more (step-up). */
function withMoreScope(scope: string | undefined): { moreScope?: string } {
  return scope === undefined ? {} : { moreScope: scope };
}
