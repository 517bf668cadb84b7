export { ConnectError, type ConnectReturn } from './connect-error.js';
export {
  asDiscoveryError,
  type Discovered,
  discoverAuthorization,
  OAuthDiscoveryError,
} from './discovery.js';
export { checkOAuthUrl, createOAuthFetch, OAuthUrlError } from './oauth-fetch.js';
export {
  cliUpstreamConnectPath,
  mountUpstreamOAuthPages,
  startUpstreamConnect,
} from './pages.js';
export {
  type PluginOAuthProvider,
  pluginOAuthClient,
  pluginOAuthProviders,
} from './plugin-providers.js';
export {
  type OAuthSources,
  type ProviderClients,
  UPSTREAM_CALLBACK_PATH,
  UpstreamOAuthService,
  type UpstreamOAuthServiceOptions,
} from './service.js';
export { UpstreamTokens } from './tokens.js';
