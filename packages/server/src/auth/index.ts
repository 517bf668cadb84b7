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
  type PasswordHasher,
} from './create-auth.js';
// From the files, not generic-oidc/index.js: that one also loads the providers (better-auth's
// OAuth helpers), which start-up must not.
export { type CallbackFailure, withCallbackContext } from './generic-oidc/callback-context.js';
export {
  CLOUD_PLATFORM_SCOPES,
  GOOGLE_OIDC_USERINFO_URL,
  STANDARD_OIDC_SCOPES,
} from './generic-oidc/specs.js';
export { forwardToAuth, mountAuth, toGatewayError } from './mount-auth.js';
export {
  createOutageLog,
  OUTAGE_LOG_INTERVAL_MS,
  type OutageLog,
  providerUnreachableText,
} from './outage-log.js';
export {
  type ConfiguredProvider,
  type ProviderSetup,
  providerDisplayName,
  providerSetup,
} from './provider-config.js';
export { consumeRateLimit, type RateLimitDecision, type RateLimitRule } from './rate-limit.js';
export { BETTER_AUTH_STATE, betterAuthSchemaFingerprint } from './schema-fingerprint.js';
export { type BetterAuthSecrets, betterAuthSecrets, secretVersion } from './secret-versions.js';
