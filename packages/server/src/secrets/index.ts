export { MASK_CHAR, maskSecret } from './mask.js';
export { createSecretBox, type SecretBox, SecretDecryptError } from './secret-box.js';
export {
  generateToken,
  hashToken,
  looksLikeToken,
  maskToken,
  safeEqual,
  type TokenKind,
} from './tokens.js';
