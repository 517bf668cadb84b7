import type { BetterAuthOptions } from 'better-auth';
import { getMigrations } from 'better-auth/db/migration';
import { type Kysely, sql } from 'kysely';
import type { GatewayDatabase } from '../db/index.js';
import { BETTER_AUTH_STATE, betterAuthSchemaFingerprint } from './schema-fingerprint.js';

/** What better-auth's migration plan holds, in words (`create table rateLimit`, ...). */
function describePlan(plan: Awaited<ReturnType<typeof getMigrations>>): string[] {
  return [
    ...plan.toBeCreated.map(({ table }) => `create table ${table}`),
    ...plan.toBeAdded.flatMap(({ table, fields }) =>
      Object.keys(fields).map((field) => `add column ${table}.${field}`),
    ),
    ...plan.toBeAddedIndexes.map(({ table, name }) => `create index ${name} on ${table}`),
  ];
}

/**
 * Runs better-auth's own schema migrations (`getMigrations` from `better-auth/db/migration`, as
 * its CLI's `migrate` does) for `options` on the gateway's database, after the gateway's own
 * migrations have run. Returns what it changed, empty when the schema was already what
 * better-auth expects (every start after the first, as long as better-auth's schema does not
 * change).
 *
 * The gateway's first migrations create better-auth's tables themselves, column for column; this
 * step keeps them in step with the installed better-auth afterwards (a new column, table or
 * index in a later version), so a mismatch is fixed at start instead of failing requests.
 *
 * - One transaction: the plan is read and applied inside it, and a failure rolls all of it back.
 *   On SQLite it begins `immediate` (the write lock first, so two processes cannot both plan the
 *   same change); on PostgreSQL a transaction-scoped advisory lock, named after the schema,
 *   serialises instances starting at once.
 * - PostgreSQL: better-auth reads and changes the current schema (the first of `search_path`),
 *   the one the gateway's own tables are in.
 * - The schema's fingerprint ({@link betterAuthSchemaFingerprint}) is stored in `schema_state`
 *   in the same transaction, so later starts with the same better-auth and options skip this.
 *
 * @example
 * const changes = await migrateBetterAuth(database, auth.options); // [] when up to date
 *
 * @throws Error starting "better-auth's schema migration failed" when better-auth refuses a
 * change (a required column without a default on a table with rows), finds a column it does not
 * know that would break its inserts, or the database refuses a statement. Nothing is changed.
 */
export async function migrateBetterAuth(
  database: GatewayDatabase,
  options: BetterAuthOptions,
): Promise<string[]> {
  return database.db.connection().execute(async (connection) => {
    const conn = connection as Kysely<unknown>;
    await sql.raw(database.dialect === 'sqlite' ? 'begin immediate' : 'begin').execute(conn);
    try {
      if (database.dialect === 'postgres') {
        await sql`select pg_advisory_xact_lock(hashtextextended(${'gateway:better-auth-migrations:'} || current_schema(), 0))`.execute(
          conn,
        );
      }
      const plan = await getMigrations({
        ...options,
        database: { db: conn, type: database.dialect },
      });
      if (plan.schemaProblems.length > 0) {
        throw new Error(
          `better-auth cannot write to its tables as they are: ${plan.schemaProblems.join('; ')}`,
        );
      }
      const changes = describePlan(plan);
      await plan.runMigrations();
      const fingerprint = betterAuthSchemaFingerprint(options, database.dialect);
      await sql`insert into schema_state (name, value) values (${BETTER_AUTH_STATE}, ${fingerprint})
        on conflict (name) do update set value = excluded.value`.execute(conn);
      await sql`commit`.execute(conn);
      return changes;
    } catch (error) {
      await sql`rollback`.execute(conn).catch(() => undefined);
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(
        `better-auth's schema migration failed, nothing was changed: ${reason}. Fix the tables named, or install the better-auth version this gateway was released with.`,
        { cause: error },
      );
    }
  });
}
