export type { Credential } from './credential.js';
export {
  type CredentialSource,
  CredentialStore,
  type CredentialStoreOptions,
  type LocatedCredential,
} from './credential-store.js';
export { KEYCHAIN_SERVICE, type Keychain, osKeychain } from './keychain.js';
export { configDir, credentialsFile, settingsFile } from './paths.js';
export { DEFAULT_SERVER_URL, normalizeServerUrl } from './server-url.js';
export {
  loadSession,
  NOT_SIGNED_IN,
  requireSession,
  resolveServerUrl,
  type Session,
  type SessionOptions,
} from './session.js';
export { readDefaultUrl, writeDefaultUrl } from './settings.js';
