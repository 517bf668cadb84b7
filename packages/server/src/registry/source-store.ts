import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../db/index.js';

/**
 * Stores the registration of an upstream MCP server (`upstream/`), its settings as JSON in
 * `upstream`. Takes the caller's transaction: the upstream's OAuth client is stored with it.
 *
 * @example
 * await insertUpstreamSource(trx, { id, namespace, createdAt, upstream: JSON.stringify(stored) });
 */
export async function insertUpstreamSource(
  db: Kysely<DatabaseSchema>,
  source: { id: string; namespace: string; createdAt: string; upstream: string },
): Promise<void> {
  await db
    .insertInto('registry_sources')
    .values({
      id: source.id,
      type: 'mcp',
      namespace: source.namespace,
      plugin_id: '',
      created_at: source.createdAt,
      upstream: source.upstream,
    })
    .execute();
}

/** Replaces the stored settings (`upstream` JSON) of upstream registration `id`. */
export async function updateUpstreamSource(
  db: Kysely<DatabaseSchema>,
  id: string,
  upstream: string,
): Promise<void> {
  await db.updateTable('registry_sources').set({ upstream }).where('id', '=', id).execute();
}
