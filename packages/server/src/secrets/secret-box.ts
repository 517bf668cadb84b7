import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createSecretKey,
  type KeyObject,
  randomBytes,
} from 'node:crypto';

const ALGORITHM = 'aes-256-gcm';
/** 96 bits: the IV length GCM is specified for; others are hashed into one and weaken it. */
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Canonical, padded standard base64, which is what `encrypt` writes. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * A stored secret could not be decrypted: it was altered, truncated, is not in the
 * `base64(iv):base64(ciphertext)` format, or was encrypted under an auth secret that is neither
 * the current one nor a configured previous one. The message never includes the stored value or
 * any key material.
 */
export class SecretDecryptError extends Error {
  constructor(reason: string, options?: ErrorOptions) {
    super(`Cannot decrypt the stored secret: ${reason}.`, options);
    this.name = 'SecretDecryptError';
  }
}

/** What {@link SecretBox.open} found in a stored value. */
export interface OpenedSecret {
  plain: string;
  /** Whether the current key opened it; false when a previous one did (rekey rewrites those). */
  current: boolean;
}

/** Encrypts secrets for storage and decrypts them for token vending. */
export interface SecretBox {
  /**
   * Encrypts `plain` under the current key and a fresh random IV; the result is
   * `base64(iv):base64(ciphertext+tag)`.
   */
  encrypt(plain: string): string;
  /**
   * Decrypts what {@link SecretBox.encrypt} produced under the current key or a previous one.
   *
   * @throws {SecretDecryptError} for anything else, including a value encrypted under a key that
   * is not configured.
   */
  decrypt(stored: string): string;
  /**
   * As {@link SecretBox.decrypt}, also telling whether the current key opened the value.
   *
   * @throws {SecretDecryptError} as `decrypt` does.
   */
  open(stored: string): OpenedSecret;
}

/**
 * Creates the box that encrypts connection secrets at rest with AES-256-GCM. The key is the
 * SHA-256 of `authSecret` (the `AUTH_SECRET` setting), derived once here, as the spec's stored
 * format requires. `previousAuthSecrets` (`GATEWAY_PREVIOUS_AUTH_SECRETS`) only decrypt: a value
 * is tried under the current key, then each previous one in order, and GCM's tag tells which key
 * fits. Encryption always uses the current key.
 *
 * @example
 * const box = createSecretBox(process.env.AUTH_SECRET ?? '', ['the-secret-before-rotation']);
 * const stored = box.encrypt('sk-live-1234');
 * box.decrypt(stored); // 'sk-live-1234'
 *
 * @throws {Error} when `authSecret` or a previous secret is empty.
 */
export function createSecretBox(
  authSecret: string,
  previousAuthSecrets: readonly string[] = [],
): SecretBox {
  if (typeof authSecret !== 'string' || authSecret.length === 0) {
    throw new Error('The auth secret is empty: set AUTH_SECRET to encrypt stored secrets.');
  }
  if (previousAuthSecrets.some((previous) => typeof previous !== 'string' || previous === '')) {
    throw new Error('A previous auth secret is empty: list only non-empty secrets.');
  }
  const key = keyOf(authSecret);
  const keys = [key, ...previousAuthSecrets.map(keyOf)];

  return {
    encrypt(plain) {
      if (typeof plain !== 'string') throw new TypeError('Only strings can be encrypted.');
      // A fresh random IV per message: GCM under one key breaks if an IV ever repeats.
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
      const sealed = Buffer.concat([
        cipher.update(plain, 'utf8'),
        cipher.final(),
        cipher.getAuthTag(),
      ]);
      return `${iv.toString('base64')}:${sealed.toString('base64')}`;
    },

    decrypt: (stored) => open(stored).plain,
    open,
  };

  function open(stored: string): OpenedSecret {
    if (typeof stored !== 'string') throw new SecretDecryptError('it is not a string');
    const parts = stored.split(':');
    if (parts.length !== 2) throw new SecretDecryptError('it is not in the iv:ciphertext format');
    const [ivText = '', sealedText = ''] = parts;
    if (!BASE64.test(ivText) || !BASE64.test(sealedText)) {
      throw new SecretDecryptError('it is not valid base64');
    }
    const iv = Buffer.from(ivText, 'base64');
    const sealed = Buffer.from(sealedText, 'base64');
    if (iv.length !== IV_BYTES) throw new SecretDecryptError('its IV has the wrong length');
    if (sealed.length < TAG_BYTES) throw new SecretDecryptError('it is truncated');

    let failure: unknown;
    for (const [index, candidate] of keys.entries()) {
      try {
        return { plain: openWith(candidate, iv, sealed), current: index === 0 };
      } catch (error) {
        // The only failure left is authentication: the value was altered or the key differs.
        failure = error;
      }
    }
    throw new SecretDecryptError(
      'it was altered or encrypted under another key (neither AUTH_SECRET nor one of GATEWAY_PREVIOUS_AUTH_SECRETS)',
      { cause: failure },
    );
  }
}

/** The AES key of an auth secret: its SHA-256, as the spec's stored format defines. */
function keyOf(authSecret: string): KeyObject {
  const digest = createHash('sha256').update(authSecret, 'utf8').digest();
  // A KeyObject keeps the key out of reach of code that inspects this closure; the digest buffer
  // it was copied from is wiped.
  const key = createSecretKey(digest);
  digest.fill(0);
  return key;
}

/** @throws when the GCM tag does not verify under `key`. */
function openWith(key: KeyObject, iv: Buffer, sealed: Buffer): string {
  // The tag length is fixed, not taken from the input: a shortened tag would otherwise be
  // accepted and make forgery far cheaper.
  const decipher = createDecipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  const plain = Buffer.concat([
    decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)),
    decipher.final(),
  ]);
  return plain.toString('utf8');
}
