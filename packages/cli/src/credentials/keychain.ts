/** The keychain service name every gateway credential is stored under; the account is the URL. */
export const KEYCHAIN_SERVICE = 'gateway';

/**
 * A secret store keyed by account name. Each method rejects when the store does not answer
 * (none installed, locked, no session bus): callers then fall back to the credentials file.
 */
export interface Keychain {
  /** The secret stored for `account`, or undefined when there is none. */
  get(account: string): Promise<string | undefined>;
  set(account: string, secret: string): Promise<void>;
  /** Removes the secret of `account`; resolves whether there was one. */
  delete(account: string): Promise<boolean>;
}

/**
 * The OS keychain through @napi-rs/keyring (macOS Keychain, Windows Credential Manager, the
 * Secret Service on Linux), loaded only when first used.
 *
 * On Linux the Secret Service is required rather than letting the library fall back to the
 * kernel keyring: that one lives only as long as the login session, so a token put there would
 * vanish at the next reboot while `gateway whoami` claimed it was in the keychain. Without a
 * Secret Service (a headless machine) the credentials file is used instead, as `gh` does.
 *
 * @example
 * await osKeychain().set('https://gateway.example.com', json);
 */
export function osKeychain(): Keychain {
  const entry = async (account: string) => {
    const { AsyncEntry } = await import('@napi-rs/keyring');
    return new AsyncEntry(KEYCHAIN_SERVICE, account, { linux: { store: 'secret-service' } });
  };
  return {
    async get(account) {
      return (await (await entry(account)).getPassword()) ?? undefined;
    },
    async set(account, secret) {
      await (await entry(account)).setPassword(secret);
    },
    async delete(account) {
      return (await entry(account)).deleteCredential();
    },
  };
}
