import type { Plugin } from '@gateway/sdk';
import { type Env, serverApiKey } from '../config/env.js';
import { oauthClient, oauthDisplayName } from '../config/env-providers.js';
import { OAUTH_PROVIDERS, oauthCallbackUrl } from './providers.js';

/** One connector of `GET /api/connectors/availability`. */
export interface ConnectorAvailability {
  id: string;
  name: string;
  kind: 'social' | 'generic' | 'api_key' | 'mcp_oauth' | 'plugin_oauth';
  /** OAuth: both client id and secret set. API key: `<ID>_API_KEY` set (its value is never shown). */
  configured: boolean;
  /** OAuth only: the redirect URI to register upstream. */
  callbackUrl?: string;
}

/** An upstream MCP source whose users connect with OAuth, as availability lists it. */
export interface UpstreamOAuthConnector {
  id: string;
  /** The redirect URI the gateway registers at the upstream's authorization server. */
  callbackUrl: string;
}

/**
 * Which connectors are wired up: every shipped OAuth provider, then one connector per distinct
 * `api_key` auth provider and own OAuth provider (`plugin_oauth`) of the loaded plugins (sorted
 * by id). Read from the
 * environment at call time, so it reflects the settings the server runs with.
 *
 * @example
 * connectorAvailability({ env: process.env, authBaseUrl, plugins: catalog.plugins() });
 */
export function connectorAvailability(options: {
  env: Env;
  authBaseUrl: string;
  plugins: readonly Plugin[];
  /** The gateway's callback for upstream OAuth, which plugins' own OAuth providers use too. */
  callbackUrl?: string;
  /**
   * The plugins' own OAuth providers that have a client (settings or Admin → Providers); without
   * it, the settings alone tell.
   */
  pluginOAuthConfigured?: ReadonlySet<string>;
  /** Upstream MCP sources with `auth: { kind: "oauth" }`, listed last as `mcp_oauth`. */
  upstreamOAuth?: readonly UpstreamOAuthConnector[];
}): ConnectorAvailability[] {
  const oauth = OAUTH_PROVIDERS.map((provider) => ({
    id: provider.id,
    name:
      provider.kind === 'generic'
        ? (oauthDisplayName(options.env, provider.id) ?? provider.name)
        : provider.name,
    kind: provider.kind,
    configured: oauthClient(options.env, provider.id) !== undefined,
    callbackUrl: oauthCallbackUrl(options.authBaseUrl, provider),
  }));

  const apiKeys = new Map<string, ConnectorAvailability>();
  for (const plugin of options.plugins) {
    for (const provider of plugin.authProviders) {
      if (apiKeys.has(provider.id)) continue;
      if (provider.type === 'oauth2' && provider.oauth !== undefined) {
        // A plugin's own OAuth provider: configured once the operator gave it a client.
        apiKeys.set(provider.id, {
          id: provider.id,
          name: plugin.name,
          kind: 'plugin_oauth',
          configured:
            options.pluginOAuthConfigured?.has(provider.id) ??
            oauthClient(options.env, provider.id) !== undefined,
          ...(options.callbackUrl === undefined ? {} : { callbackUrl: options.callbackUrl }),
        });
        continue;
      }
      if (provider.type !== 'api_key') continue;
      apiKeys.set(provider.id, {
        id: provider.id,
        // The plugin's name is what a user recognises ("Weather"), the provider id is not.
        name: plugin.name,
        kind: 'api_key',
        configured: serverApiKey(options.env, provider.id) !== undefined,
      });
    }
  }
  const sorted = [...apiKeys.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const upstreams = (options.upstreamOAuth ?? []).map((source) => ({
    id: source.id,
    name: `the upstream MCP server ${source.id}`,
    kind: 'mcp_oauth' as const,
    // The source itself is the configuration: its authorization server is discovered.
    configured: true,
    callbackUrl: source.callbackUrl,
  }));
  return [...oauth, ...sorted, ...upstreams];
}
