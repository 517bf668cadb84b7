import { createHash } from 'node:crypto';

/** better-auth's versioned secrets, as its `secrets` and `secret` options take them. */
export interface BetterAuthSecrets {
  /** The current secret first (it encrypts), then the previous ones (they only decrypt). */
  secrets: { version: number; value: string }[];
  /**
   * The secret of OAuth tokens better-auth stored before versioned secrets were turned on (bare
   * hex, no `$ba$<version>$` envelope): the oldest previous secret, or the current one when there
   * is none. That is the secret in use when the gateway was upgraded, as rotation was impossible
   * before; `gateway-server rekey` tries every configured secret on such tokens anyway.
   */
  legacySecret: string;
}

/**
 * The version better-auth writes into the envelope of what `secret` encrypts
 * (`$ba$<version>$...`). Operators list previous secrets without numbers, so the number comes
 * from the secret itself: stable across restarts, instances and rotations, and the same secret
 * always gets the same one. It gives away no more than the ciphertext beside it, which already
 * lets anyone holding it test a guess of the secret.
 *
 * @example
 * secretVersion(process.env.AUTH_SECRET ?? ''); // e.g. 1462089213
 */
export function secretVersion(secret: string): number {
  const digest = createHash('sha256').update('gateway better-auth secret version\n').update(secret);
  // 31 bits: a non-negative integer however better-auth parses it.
  return digest.digest().readUInt32BE(0) >>> 1;
}

/**
 * better-auth's rotation settings for the gateway's auth secrets. Always versioned, even with no
 * previous secret: once a token is stored in the envelope format, only a versioned setup reads it.
 *
 * @throws Error when two different secrets map to one version (about one chance in 2^31).
 * @example
 * const { secrets, legacySecret } = betterAuthSecrets(current, previous);
 * betterAuth({ secrets, secret: legacySecret, ... });
 */
export function betterAuthSecrets(
  current: string,
  previous: readonly string[] = [],
): BetterAuthSecrets {
  const all = [current, ...previous.filter((secret) => secret !== current)];
  const secrets = all.map((value) => ({ version: secretVersion(value), value }));
  if (new Set(secrets.map((entry) => entry.version)).size !== secrets.length) {
    throw new Error(
      'Two of AUTH_SECRET and GATEWAY_PREVIOUS_AUTH_SECRETS map to the same key version: generate a new AUTH_SECRET with `openssl rand -base64 32`',
    );
  }
  return { secrets, legacySecret: all[all.length - 1] ?? current };
}
