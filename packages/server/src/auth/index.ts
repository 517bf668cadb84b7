export { requireAdmin, requireCaller, requireService, requireUserScope } from './access.js';
export { type Caller, callerUserId } from './caller.js';
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
export { ADMIN_ROLE_ID, grantFirstAdmin } from './first-admin.js';
export { forwardToAuth, mountAuth, toGatewayError } from './mount-auth.js';
export {
  CLOUD_PLATFORM_SCOPES,
  type ConfiguredProvider,
  GOOGLE_OIDC_USERINFO_URL,
  type ProviderSetup,
  providerSetup,
} from './provider-config.js';
export { consumeRateLimit, type RateLimitDecision, type RateLimitRule } from './rate-limit.js';
export {
  type CallerResolverOptions,
  createCallerResolver,
  type SessionResolver,
} from './resolve-caller.js';
