export { CLIENT_IP_HEADER, clientAddress } from './client-ip.js';
export {
  type Auth,
  type AuthServices,
  type AuthSession,
  createGatewayAuth,
  DEFAULT_RATE_LIMITS,
  type GatewayAuth,
  type GatewayAuthOptions,
  type GatewayRateLimits,
} from './create-auth.js';
export {
  type CallbackFailure,
  CLOUD_PLATFORM_SCOPES,
  GOOGLE_OIDC_USERINFO_URL,
  STANDARD_OIDC_SCOPES,
  withCallbackContext,
} from './generic-oidc/index.js';
export { forwardToAuth, mountAuth, toGatewayError } from './mount-auth.js';
export { type ConfiguredProvider, type ProviderSetup, providerSetup } from './provider-config.js';
export { consumeRateLimit, type RateLimitDecision, type RateLimitRule } from './rate-limit.js';
export { type BetterAuthSecrets, betterAuthSecrets, secretVersion } from './secret-versions.js';
