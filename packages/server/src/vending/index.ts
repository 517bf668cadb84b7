export {
  type ConnectionQuery,
  findServingConnection,
} from '../connections/serving-connection.js';
export { EXPIRY_SKEW_MS } from './account-refresh.js';
export {
  createOAuthTokenSource,
  type OAuthTokenResult,
  type OAuthTokenSource,
} from './oauth-source.js';
export {
  accountsNeedingReconnect,
  providersNeedingReconnect,
  recentReconnectMarks,
} from './reconnect-marks.js';
export {
  connectIdFor,
  createTokenVendor,
  howToConnect,
  ProviderUnreachableError,
  type TokenSource,
  type TokenVendor,
  type ToolPlugin,
  type VendedToken,
  type VendingServices,
  type VendTokenOptions,
} from './token-vendor.js';
