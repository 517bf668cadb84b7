import type { OAuthProviderConfig, Plugin } from '@gateway/sdk';
import type { AuthorizationServerMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Env } from '../config/env.js';
import { oauthClient as envClient, oauthScopes } from '../config/env-providers.js';
import { PLUGIN_OAUTH_PREFIX } from '../upstream/oauth-hooks.js';
import type { UrlPolicy } from '../upstream/url-policy.js';
import { type Discovered, OAuthDiscoveryError } from './discovery.js';
import { checkOAuthUrl, OAuthUrlError } from './oauth-fetch.js';
import { oauthClient } from './sdk.js';

/** A plugin's own OAuth provider, as the gateway connects users to it. */
export interface PluginOAuthProvider {
  /** The provider id (the connection's tool id, `gateway connect <id>`). */
  id: string;
  pluginId: string;
  pluginName: string;
  config: OAuthProviderConfig;
}

/**
 * The plugins' own OAuth providers by id (the first plugin declaring an id wins; the catalog
 * refuses a second one with another configuration).
 *
 * @example
 * pluginOAuthProviders(catalog.plugins()).get('notion')?.config.tokenUrl;
 */
export function pluginOAuthProviders(plugins: readonly Plugin[]): Map<string, PluginOAuthProvider> {
  const found = new Map<string, PluginOAuthProvider>();
  for (const plugin of plugins) {
    for (const entry of plugin.authProviders) {
      if (entry.oauth === undefined || found.has(entry.id)) continue;
      found.set(entry.id, {
        id: entry.id,
        pluginId: plugin.id,
        pluginName: plugin.name,
        config: entry.oauth,
      });
    }
  }
  return found;
}

/** The provider id of upstream-OAuth key `key` when it is a plugin provider's (`@<id>`). */
export function pluginProviderIdOf(key: string): string | undefined {
  return key.startsWith(PLUGIN_OAUTH_PREFIX) ? key.slice(PLUGIN_OAUTH_PREFIX.length) : undefined;
}

/** The operator's client for plugin provider `id`: `<ID>_CLIENT_ID` and `<ID>_CLIENT_SECRET`. */
export function pluginOAuthClient(
  env: Env,
  id: string,
): { clientId: string; clientSecret: string } | undefined {
  return envClient(env, id);
}

/**
 * What the connect flow needs of a plugin provider, as if discovered: its endpoints (given, or
 * discovered from its `issuer` by RFC 8414 then OpenID Connect discovery), every URL checked by
 * the upstream URL policy, the scopes (`<ID>_SCOPES`, else the plugin's), and no resource
 * indicator (a plain OAuth API knows none).
 *
 * @throws OAuthDiscoveryError `refused` for an address the policy refuses or metadata without
 * PKCE S256, `unreachable` when the issuer's metadata cannot be fetched.
 */
export async function describePluginProvider(
  provider: PluginOAuthProvider,
  options: { env: Env; policy: UrlPolicy; fetch: FetchLike },
): Promise<Discovered> {
  const { config } = provider;
  const scopes = oauthScopes(options.env, provider.id) ?? [...(config.scopes ?? [])];
  const scope = scopes.length === 0 ? undefined : scopes.join(' ');
  const check = (url: string, what: string) => {
    try {
      return checkOAuthUrl(url, what, options.policy);
    } catch (error) {
      if (error instanceof OAuthUrlError) throw new OAuthDiscoveryError('refused', error.message);
      throw error;
    }
  };
  let metadata: AuthorizationServerMetadata;
  let issuer: string;
  if (config.authorizationUrl !== undefined && config.tokenUrl !== undefined) {
    const authorization = check(
      config.authorizationUrl,
      `the authorization URL of "${provider.id}"`,
    );
    check(config.tokenUrl, `the token URL of "${provider.id}"`);
    issuer = config.issuer ?? authorization.origin;
    metadata = {
      issuer,
      authorization_endpoint: config.authorizationUrl,
      token_endpoint: config.tokenUrl,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    };
  } else if (config.issuer !== undefined) {
    check(config.issuer, `the issuer of "${provider.id}"`);
    const { discoverAuthorizationServerMetadata } = await oauthClient();
    let found: AuthorizationServerMetadata | undefined;
    try {
      found = await discoverAuthorizationServerMetadata(config.issuer, {
        fetchFn: options.fetch,
      });
    } catch {
      found = undefined;
    }
    if (found === undefined) {
      throw new OAuthDiscoveryError(
        'unreachable',
        `The OAuth metadata of "${provider.id}" could not be fetched from its issuer ${config.issuer}`,
      );
    }
    if (found.issuer !== config.issuer) {
      throw new OAuthDiscoveryError(
        'refused',
        `The OAuth metadata of "${provider.id}" names another issuer than ${config.issuer}, so it was refused`,
      );
    }
    check(found.authorization_endpoint, `the authorization endpoint of "${provider.id}"`);
    check(found.token_endpoint, `the token endpoint of "${provider.id}"`);
    issuer = found.issuer;
    metadata = found;
  } else {
    throw new OAuthDiscoveryError('refused', `"${provider.id}" names no OAuth endpoints`);
  }
  return { resource: '', issuer, metadata, scope };
}

/**
 * The authorization URL with the plugin's extra parameters added; one the gateway sets itself is
 * never replaced (the sdk refuses them at definition too).
 */
export function withAuthorizationParams(url: URL, config: OAuthProviderConfig): URL {
  for (const [key, value] of Object.entries(config.authorizationParams ?? {})) {
    if (!url.searchParams.has(key)) url.searchParams.set(key, value);
  }
  return url;
}
