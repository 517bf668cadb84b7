import type { Kysely } from 'kysely';
import type { DatabaseDialect } from '../database.js';

/**
 * One schema step. Migrations see an untyped database (`Kysely<unknown>`) on purpose: the
 * current `DatabaseSchema` describes the latest schema, not the one a step starts from.
 * `dialect` is only for column types the two engines spell differently.
 */
export interface GatewayMigration {
  up(db: Kysely<unknown>, dialect: DatabaseDialect): Promise<void>;
}
