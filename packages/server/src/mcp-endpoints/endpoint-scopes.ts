import type { GatewayDatabase } from '../db/index.js';
import { LookupCache } from '../db/lookup-cache.js';
import { prepareQuery } from '../db/prepared-query.js';
import { type EndpointScope, endpointScopeOf, NOTHING } from './scope.js';

/** Called after an endpoint's tools or mode changed through this instance. */
export type EndpointScopeListener = (endpointId: string) => void;

/**
 * What each MCP endpoint serves ({@link EndpointScope}), read from its row by id, so it applies to
 * every kind of endpoint, and to a 2025 session opened before the endpoint changed. A row is read
 * once and kept while the database is unchanged ({@link LookupCache}: on SQLite a call costs a map
 * lookup; on PostgreSQL, where the cache cannot tell, one primary-key read), so a change made on
 * any instance applies to the very next request.
 *
 * @example
 * const scopes = new EndpointScopes(database);
 * const scope = await scopes.scopeOf(principal.endpointId);
 */
export class EndpointScopes {
  readonly #query;
  readonly #cache: LookupCache<EndpointScope>;
  readonly #listeners = new Set<EndpointScopeListener>();

  constructor(database: GatewayDatabase) {
    const { db } = database;
    this.#query = prepareQuery(db, ['id'], (param) =>
      db.selectFrom('mcp_endpoints').select(['tools', 'mode']).where('id', '=', param('id')),
    );
    this.#cache = new LookupCache(database);
  }

  /** The scope of endpoint `id`; {@link NOTHING} when there is no such endpoint (any more). */
  async scopeOf(id: string): Promise<EndpointScope> {
    const scope = await this.#cache.get(id, async () => {
      const [row] = await this.#query({ id });
      return row === undefined ? undefined : endpointScopeOf(row);
    });
    return scope ?? NOTHING;
  }

  /**
   * Calls `listener` after every change of an endpoint's tools or mode made through this instance
   * (the MCP endpoint tells that endpoint's sessions their tools changed).
   *
   * @returns a function that removes the listener.
   */
  onChange(listener: EndpointScopeListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Tells the listeners that endpoint `id` now serves something else. */
  changed(id: string): void {
    for (const listener of this.#listeners) {
      try {
        listener(id);
      } catch {
        // A listener's failure must not fail the change that was already stored.
      }
    }
  }
}
