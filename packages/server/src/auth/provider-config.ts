import type { BetterAuthOptions } from 'better-auth';
import type { Env } from '../config/env.js';
import {
  microsoftAuthority,
  microsoftTenantId,
  oauthClient,
  oauthDisplayName,
} from '../config/env-providers.js';
import {
  OAUTH_PROVIDERS,
  type OAuthProviderInfo,
  oauthCallbackUrl,
} from '../connectors/providers.js';
import {
  type GenericProviderConfig,
  resolveGenericProvider,
} from './generic-oidc/resolve-provider.js';

/** One registered provider: its catalogue entry and the redirect URI it uses. */
export interface ConfiguredProvider extends OAuthProviderInfo {
  callbackUrl: string;
  /** The client secret, so logs can scrub it. */
  clientSecret: string;
}

/** What better-auth is given: the social providers, the generic providers, and who is on. */
export interface ProviderSetup {
  socialProviders: NonNullable<BetterAuthOptions['socialProviders']>;
  generic: GenericProviderConfig[];
  configured: ConfiguredProvider[];
}

/**
 * Reads which shipped OAuth providers are enabled (both `<ID>_CLIENT_ID` and
 * `<ID>_CLIENT_SECRET` set) and builds their better-auth configuration. A provider missing either
 * is left out without an error. Generic providers get an explicit redirect URI,
 * `{authBaseUrl}/api/auth/oauth2/callback/<id>`, so the URI registered upstream never moves
 * with better-auth's defaults.
 *
 * @example
 * const setup = providerSetup(process.env, 'https://gw.example.com');
 * setup.configured.map((p) => p.id); // ['github', 'gcp']
 */
export function providerSetup(env: Env, authBaseUrl: string): ProviderSetup {
  const socialProviders: ProviderSetup['socialProviders'] = {};
  const generic: GenericProviderConfig[] = [];
  const configured: ConfiguredProvider[] = [];

  for (const shipped of OAUTH_PROVIDERS) {
    const client = oauthClient(env, shipped.id);
    if (client === undefined) continue;
    const provider = { ...shipped, name: providerDisplayName(env, shipped) };
    configured.push({
      ...provider,
      callbackUrl: oauthCallbackUrl(authBaseUrl, provider),
      clientSecret: client.clientSecret,
    });
    // A social provider runs as better-auth's own (its endpoints fixed) unless its endpoints are
    // overridden: then as a standard OAuth provider at the same callback path.
    const config = resolveGenericProvider(
      env,
      provider,
      client,
      oauthCallbackUrl(authBaseUrl, provider),
    );
    if (config) generic.push(config);
    else if (provider.kind === 'social') {
      Object.assign(socialProviders, socialProvider(env, provider.id, client));
    }
  }
  return { socialProviders, generic, configured };
}

/**
 * A shipped provider's name as users see it: a generic slot's `<P>_DISPLAY_NAME` when set,
 * else the product's name.
 *
 * @example
 * providerDisplayName({ GCP_DISPLAY_NAME: 'Okta' }, { id: 'gcp', name: 'Google Cloud', kind: 'generic' }); // 'Okta'
 */
export function providerDisplayName(env: Env, provider: OAuthProviderInfo): string {
  return provider.kind === 'generic'
    ? (oauthDisplayName(env, provider.id) ?? provider.name)
    : provider.name;
}

function socialProvider(
  env: Env,
  id: string,
  client: { clientId: string; clientSecret: string },
): BetterAuthOptions['socialProviders'] {
  switch (id) {
    case 'github':
      return { github: { ...client } };
    case 'google':
      // Offline access so tools keep working after the first hour; consent so a refresh token
      // is issued again on a later sign-in.
      return { google: { ...client, accessType: 'offline', prompt: 'select_account consent' } };
    case 'microsoft': {
      const tenantId = microsoftTenantId(env);
      const authority = microsoftAuthority(env);
      return {
        microsoft: {
          ...client,
          ...(tenantId === undefined ? {} : { tenantId }),
          ...(authority === undefined ? {} : { authority }),
          // The photo would be stored in the user row as a data URL; not worth a Graph call.
          disableProfilePhoto: true,
        },
      };
    }
    case 'discord':
      return { discord: { ...client } };
    default:
      return {};
  }
}
