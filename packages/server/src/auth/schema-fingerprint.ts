import { createHash } from 'node:crypto';
import { getBetterAuthVersion } from '@better-auth/core/context';
import { getAuthTables } from '@better-auth/core/db';
import type { BetterAuthOptions } from 'better-auth';
import type { DatabaseDialect } from '../db/index.js';

/** The `schema_state` row holding {@link betterAuthSchemaFingerprint}'s last migrated value. */
export const BETTER_AUTH_STATE = 'better-auth';

/**
 * A digest of the schema better-auth expects for `options`: its tables, fields, types and
 * indexes as better-auth itself derives them (`getAuthTables`, from the small `@better-auth/core`,
 * not better-auth's whole server), its version and the database dialect. Equal fingerprints mean
 * better-auth's migration would find nothing to do, so a start skips loading better-auth for it.
 * Functions in the table definitions (defaults, transforms) are not part of the schema and are
 * left out; no secret is in it (the options' secrets are not part of the tables).
 *
 * @example
 * if (stored === betterAuthSchemaFingerprint(options, 'sqlite')) return []; // nothing to migrate
 */
export function betterAuthSchemaFingerprint(
  options: BetterAuthOptions,
  dialect: DatabaseDialect,
): string {
  const schema = JSON.stringify({
    version: getBetterAuthVersion(),
    dialect,
    tables: getAuthTables(options),
  });
  return createHash('sha256').update(schema).digest('hex');
}
