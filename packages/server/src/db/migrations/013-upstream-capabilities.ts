import type { Kysely } from 'kysely';
import type { GatewayMigration } from './migration.js';

/**
 * Resources, prompts and completions of upstreams (issue 31): `upstream_tools.capabilities`, the
 * part of the upstream's server capabilities the gateway federates (`resources`, `prompts`,
 * `completions`) as JSON, fetched with its tool list, so every instance knows what each source
 * offers without asking it. Null until the list is fetched again.
 */
export const upstreamCapabilities: GatewayMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('upstream_tools').addColumn('capabilities', 'text').execute();
  },
};
