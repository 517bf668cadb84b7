export { type AuthSecrets, MIN_AUTH_SECRET_LENGTH, resolveAuthSecrets } from './auth-secrets.js';
export { MASK_CHAR, maskSecret } from './mask.js';
export {
  createSecretBox,
  type OpenedSecret,
  type SecretBox,
  SecretDecryptError,
} from './secret-box.js';
export { SecretUnreadableError } from './secret-unreadable.js';
export {
  generateToken,
  hashToken,
  looksLikeToken,
  maskToken,
  safeEqual,
  type TokenKind,
} from './tokens.js';
