import { symmetricDecrypt, symmetricEncrypt } from 'better-auth/crypto';
import { describe, expect, it } from 'vitest';
import { betterAuthSecrets, secretVersion } from './secret-versions.js';

const CURRENT = 'secret-versions-current-0123456789abcdef';
const OLD = 'secret-versions-old-0123456789abcdefghi';
const OLDEST = 'a';

describe('secretVersion', () => {
  it('is the same for the same secret, differs between secrets, and fits 31 bits', () => {
    expect(secretVersion(CURRENT)).toBe(secretVersion(CURRENT));
    expect(secretVersion(CURRENT)).not.toBe(secretVersion(OLD));
    for (const secret of [CURRENT, OLD, OLDEST]) {
      expect(Number.isInteger(secretVersion(secret))).toBe(true);
      expect(secretVersion(secret)).toBeGreaterThanOrEqual(0);
      expect(secretVersion(secret)).toBeLessThan(2 ** 31);
    }
  });
});

describe('betterAuthSecrets', () => {
  it('lists the current secret first, drops a repeat of it, and reads unversioned values with the oldest', () => {
    const { secrets, legacySecret } = betterAuthSecrets(CURRENT, [OLD, CURRENT, OLDEST]);
    expect(secrets).toEqual([
      { version: secretVersion(CURRENT), value: CURRENT },
      { version: secretVersion(OLD), value: OLD },
      { version: secretVersion(OLDEST), value: OLDEST },
    ]);
    expect(legacySecret).toBe(OLDEST);
    expect(betterAuthSecrets(CURRENT).legacySecret).toBe(CURRENT);
  });

  // What better-auth does with them: a token stored under OLD still opens after the rotation.
  it('lets better-auth open a token stored under a previous secret and seal new ones under the current', async () => {
    const config = (current: string, previous: string[] = []) => {
      const { secrets, legacySecret } = betterAuthSecrets(current, previous);
      return {
        keys: new Map(secrets.map((entry) => [entry.version, entry.value])),
        currentVersion: secretVersion(current),
        legacySecret,
      };
    };
    const before = await symmetricEncrypt({ key: config(OLD), data: 'refresh-token-1a2b' });
    const unversioned = await symmetricEncrypt({ key: OLD, data: 'refresh-token-3c4d' });
    const rotated = config(CURRENT, [OLD]);
    expect(await symmetricDecrypt({ key: rotated, data: before })).toBe('refresh-token-1a2b');
    expect(await symmetricDecrypt({ key: rotated, data: unversioned })).toBe('refresh-token-3c4d');
    const after = await symmetricEncrypt({ key: rotated, data: 'refresh-token-5e6f' });
    expect(after.startsWith(`$ba$${secretVersion(CURRENT)}$`)).toBe(true);
    await expect(symmetricDecrypt({ key: config(CURRENT), data: before })).rejects.toThrow();
  });
});
