import { z } from 'zod';
import { type Credential, credentialSchema } from './credential.js';
import { readJsonFile, removeFile, writePrivateJsonFile } from './json-file.js';
import { type Keychain, osKeychain } from './keychain.js';
import { credentialsFile } from './paths.js';

type Env = Readonly<Record<string, string | undefined>>;

/** Where a credential is kept. `env` is `GATEWAY_TOKEN`, which is never stored. */
export type CredentialSource = 'keychain' | 'file' | 'env';

/** A credential and where it was found (the file's path when it is the file). */
export interface LocatedCredential {
  credential: Credential;
  source: 'keychain' | 'file';
  /** The credentials file, when `source` is `file`. */
  file?: string;
}

/** Options of `new CredentialStore()`. */
export interface CredentialStoreOptions {
  /** The environment: `HOME` / `XDG_CONFIG_HOME` locate the credentials file. */
  env: Env;
  /**
   * The OS keychain. Default: the real one. `null` stands for a machine where none answers
   * (headless Linux), which is what tests use so they never touch the developer's keychain.
   */
  keychain?: Keychain | null;
}

const fileSchema = z.object({ credentials: z.record(z.string(), credentialSchema) });

/**
 * The credentials of `gateway login`, one per gateway URL: in the OS keychain (service
 * `gateway`, account = the URL) where one answers, else in `~/.config/gateway/credentials.json`
 * with mode 0600, as `gh` does. `GATEWAY_TOKEN` is handled by the caller (see session.ts): it
 * overrides both and is never stored.
 *
 * @example
 * const store = new CredentialStore({ env: io.env });
 * const saved = await store.save({ url, token, userId, tokenId });
 * if (saved.source === 'file') warn(saved.file);
 */
export class CredentialStore {
  readonly #env: Env;
  readonly #keychain: Keychain | null;

  constructor(options: CredentialStoreOptions) {
    this.#env = options.env;
    this.#keychain = options.keychain === undefined ? osKeychain() : options.keychain;
  }

  /** The credentials file this store falls back to. */
  get file(): string {
    return credentialsFile(this.#env);
  }

  /** The credential stored for `url`: the keychain's, else the file's; undefined when neither holds one. */
  async load(url: string): Promise<LocatedCredential | undefined> {
    const fromKeychain = await this.#keychainGet(url);
    if (fromKeychain !== undefined) return { credential: fromKeychain, source: 'keychain' };
    const fromFile = (await this.#readFile())[url];
    return fromFile === undefined
      ? undefined
      : { credential: fromFile, source: 'file', file: this.file };
  }

  /**
   * Stores `credential` under its URL: in the keychain when one accepts it (and reads it back),
   * removing any copy from the file; else in the file.
   */
  async save(
    credential: Credential,
  ): Promise<{ source: 'keychain' } | { source: 'file'; file: string }> {
    if (await this.#keychainSet(credential)) {
      await this.#removeFromFile(credential.url);
      return { source: 'keychain' };
    }
    const all = await this.#readFile();
    all[credential.url] = credential;
    await writePrivateJsonFile(this.file, { credentials: all });
    return { source: 'file', file: this.file };
  }

  /** Forgets the credential of `url` in both stores; resolves whether there was one. */
  async forget(url: string): Promise<boolean> {
    let found = false;
    if (this.#keychain !== null) {
      try {
        found = await this.#keychain.delete(url);
      } catch {
        // No keychain answers: nothing can be stored there.
      }
    }
    return (await this.#removeFromFile(url)) || found;
  }

  async #keychainGet(url: string): Promise<Credential | undefined> {
    if (this.#keychain === null) return undefined;
    let stored: string | undefined;
    try {
      stored = await this.#keychain.get(url);
    } catch {
      return undefined;
    }
    if (stored === undefined) return undefined;
    try {
      const parsed = credentialSchema.safeParse(JSON.parse(stored));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }

  /** Whether the keychain took the credential; a store that accepts but cannot give it back does not count. */
  async #keychainSet(credential: Credential): Promise<boolean> {
    if (this.#keychain === null) return false;
    try {
      await this.#keychain.set(credential.url, JSON.stringify(credential));
      return (await this.#keychainGet(credential.url))?.token === credential.token;
    } catch {
      return false;
    }
  }

  async #readFile(): Promise<Record<string, Credential>> {
    const content = await readJsonFile(this.file);
    if (content === undefined) return {};
    const parsed = fileSchema.safeParse(content);
    // A file in an unknown shape holds nothing this version can use; `save` rewrites it.
    return parsed.success ? parsed.data.credentials : {};
  }

  async #removeFromFile(url: string): Promise<boolean> {
    const all = await this.#readFile();
    if (!(url in all)) return false;
    delete all[url];
    if (Object.keys(all).length === 0) await removeFile(this.file);
    else await writePrivateJsonFile(this.file, { credentials: all });
    return true;
  }
}
