export { type ConnectorAvailability, connectorAvailability } from './availability.js';
export {
  OAUTH_PROVIDERS,
  type OAuthProviderInfo,
  type OAuthProviderKind,
  oauthCallbackUrl,
} from './providers.js';
export { connectorAvailabilitySchema, connectorRoutes } from './routes.js';
