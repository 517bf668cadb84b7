import { parseEnvelope, symmetricDecrypt, symmetricEncrypt } from 'better-auth/crypto';
import { betterAuthSecrets, secretVersion } from '../auth/index.js';
import type { AuthSecrets } from '../secrets/index.js';

/** What {@link OAuthTokenBox.open} found in a stored OAuth token. */
export type OpenedOAuthToken =
  /** Encrypted under the current secret, in better-auth's versioned envelope: nothing to do. */
  | { state: 'current' }
  /** Readable, but under a previous secret or in the unversioned format: rekey rewrites it. */
  | { state: 'stale'; plain: string }
  /** Not encrypted at all (stored before encryption was on): better-auth reads it as it is. */
  | { state: 'plain' }
  /** No configured secret opens it. */
  | { state: 'unreadable'; reason: string };

/**
 * better-auth's encryption of stored OAuth tokens (`encryptOAuthTokens`), with the gateway's
 * auth secrets, through better-auth's own symmetric helpers: the versioned envelope
 * `$ba$<version>$<hex>` (see `auth/secret-versions.ts`) and the unversioned hex better-auth
 * wrote before versions were turned on.
 */
export interface OAuthTokenBox {
  /** Tells whether `stored` needs rewriting, decrypting it when it does. */
  open(stored: string): Promise<OpenedOAuthToken>;
  /** Encrypts `plain` as better-auth does now: the current secret's envelope. */
  seal(plain: string): Promise<string>;
}

/**
 * The OAuth token box for `secrets`.
 *
 * @example
 * const box = createOAuthTokenBox({ current, previous });
 * const opened = await box.open(row.refreshToken);
 * if (opened.state === 'stale') await save(await box.seal(opened.plain));
 */
export function createOAuthTokenBox(secrets: AuthSecrets): OAuthTokenBox {
  const { secrets: versioned, legacySecret } = betterAuthSecrets(secrets.current, secrets.previous);
  const config = {
    keys: new Map(versioned.map((entry) => [entry.version, entry.value])),
    currentVersion: secretVersion(secrets.current),
    legacySecret,
  };
  const bySecret = versioned.map((entry) => entry.value);

  const tryDecrypt = async (secret: string, data: string) => {
    try {
      return await symmetricDecrypt({ key: secret, data });
    } catch {
      return undefined;
    }
  };

  return {
    async open(stored) {
      const envelope = parseEnvelope(stored);
      if (envelope !== null) {
        const secret = config.keys.get(envelope.version);
        if (secret === undefined) {
          return {
            state: 'unreadable',
            reason: 'its key version is none of the configured secrets',
          };
        }
        const plain = await tryDecrypt(secret, envelope.ciphertext);
        if (plain === undefined) return { state: 'unreadable', reason: 'it was altered' };
        return envelope.version === config.currentVersion
          ? { state: 'current' }
          : { state: 'stale', plain };
      }
      // better-auth's own test for an unversioned encrypted value; anything else is plaintext.
      if (!(stored.length % 2 === 0 && /^[0-9a-f]+$/i.test(stored))) return { state: 'plain' };
      for (const secret of bySecret) {
        const plain = await tryDecrypt(secret, stored);
        if (plain !== undefined) return { state: 'stale', plain };
      }
      return { state: 'unreadable', reason: 'no configured secret opens it' };
    },
    seal: (plain) => symmetricEncrypt({ key: config, data: plain }),
  };
}
