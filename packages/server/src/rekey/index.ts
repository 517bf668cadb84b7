export { createOAuthTokenBox, type OAuthTokenBox, type OpenedOAuthToken } from './oauth-tokens.js';
export {
  REKEY_TABLES,
  type RekeyCounts,
  type RekeyOptions,
  type RekeyReport,
  type RekeyTable,
  rekey,
  type UnreadableRow,
} from './rekey.js';
export { type RunRekeyOptions, runRekey, UnreadableSecretsError } from './run-rekey.js';
