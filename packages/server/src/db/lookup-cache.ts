import type { GatewayDatabase } from './database.js';

/** Entries a cache holds at most; past it, it starts over. */
const DEFAULT_MAX_ENTRIES = 10_000;

/**
 * Caches the answers of a lookup that every MCP call makes (a token's owner, a user's role) for
 * as long as the database has not changed, by the database's {@link GatewayDatabase.changeMark}:
 * any change, on any instance sharing the database, and the cache starts over, so a deleted
 * token or an edited role applies to the very next call. Where the database cannot tell
 * (PostgreSQL), every lookup reads. Misses (`undefined`) are not kept: an unknown token costs a
 * read each time, and cannot fill the cache.
 *
 * @example
 * const owners = new LookupCache<Owner>(database);
 * const owner = await owners.get(hash, () => readOwner(hash));
 */
export class LookupCache<Value> {
  readonly #database: GatewayDatabase;
  readonly #maxEntries: number;
  #entries = new Map<string, Value>();
  #mark: string | undefined;

  constructor(database: GatewayDatabase, maxEntries = DEFAULT_MAX_ENTRIES) {
    this.#database = database;
    this.#maxEntries = maxEntries;
  }

  /**
   * The value for `key`: the kept one while the database is unchanged, otherwise `read()`'s,
   * kept when the database did not change while it was read.
   */
  get(key: string, read: () => Promise<Value | undefined>): Promise<Value | undefined> {
    const value = this.getNow(key, read);
    return value instanceof Promise ? value : Promise.resolve(value);
  }

  /**
   * As {@link get}, but a kept value is answered as it is, not in a promise: a caller on every
   * MCP call's way then takes no turn of the event loop for it (issue 37).
   */
  getNow(
    key: string,
    read: () => Promise<Value | undefined>,
  ): Value | undefined | Promise<Value | undefined> {
    const mark = this.#database.changeMark();
    if (mark === undefined) return read();
    if (mark !== this.#mark) {
      this.#entries = new Map();
      this.#mark = mark;
    }
    const kept = this.#entries.get(key);
    if (kept !== undefined) return kept;
    return this.#readAndKeep(key, read, mark);
  }

  async #readAndKeep(
    key: string,
    read: () => Promise<Value | undefined>,
    mark: string,
  ): Promise<Value | undefined> {
    const value = await read();
    // A change that landed during the read may or may not be in `value`: not kept then.
    if (value !== undefined && this.#database.changeMark() === mark && this.#mark === mark) {
      if (this.#entries.size >= this.#maxEntries) this.#entries = new Map();
      this.#entries.set(key, value);
    }
    return value;
  }
}
