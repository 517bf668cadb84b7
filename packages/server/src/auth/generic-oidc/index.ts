export {
  type CallbackFailure,
  currentCallback,
  refuseCallback,
  withCallbackContext,
} from './callback-context.js';
export { createGenericProvider } from './generic-provider.js';
export { genericOidc } from './plugin.js';
export { type GenericProviderConfig, resolveGenericProvider } from './resolve-provider.js';
export {
  CLOUD_PLATFORM_SCOPES,
  GENERIC_PROVIDER_SPECS,
  GOOGLE_OIDC_USERINFO_URL,
  STANDARD_OIDC_SCOPES,
} from './specs.js';
