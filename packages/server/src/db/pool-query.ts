import { createHash } from 'node:crypto';
import type { CompiledQuery } from 'kysely';
import { inQuerySpan, type QuerySpan, querySpan } from './query-spans.js';

/** A statement for {@link PoolQuery}: its SQL, name and span, all worked out once. */
export interface PoolStatement {
  sql: string;
  /**
   * Its name as a server-side prepared statement: each connection parses it once, then only binds
   * and executes it (docs/deploy.md: a pooler in front must use session pooling).
   */
  name: string;
  span: QuerySpan;
}

/**
 * Runs one statement on a connection of the PostgreSQL pool, outside kysely; resolves to its
 * rows. Errors are the driver's own, as kysely passes them on, so an outage still answers 503
 * `database_unavailable` (db/unavailable.ts).
 */
export type PoolQuery = (statement: PoolStatement, parameters: unknown[]) => Promise<unknown[]>;

/** The subset of a `pg` pool client a {@link PoolQuery} uses. */
interface PoolClient {
  query(query: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
  /** With an error: the pool closes the connection instead of keeping it. */
  release(error?: Error): void;
}

const poolQueries = new WeakMap<object, PoolQuery>();

/**
 * The {@link PoolQuery} of `db` when it is a PostgreSQL database's root query builder; undefined
 * on SQLite and inside a transaction (whose queries must go on its connection, through kysely).
 * For the statements every MCP call makes (its token's lookup, its record's upsert): kysely's
 * executor, connection provider and driver (each an `async` layer) cost as many instructions as
 * the rest of the gateway's side of a query less node-postgres (issue 30 item 4).
 *
 * @example
 * const run = poolQueryOf(database.db);
 * const rows = run ? await run(statement, [hash]) : (await db.executeQuery(query)).rows;
 */
export function poolQueryOf(db: object): PoolQuery | undefined {
  return poolQueries.get(db);
}

/** Makes `run` the {@link poolQueryOf} `db` (db/database.ts, as it opens a PostgreSQL pool). */
export function setPoolQuery(db: object, run: PoolQuery): void {
  poolQueries.set(db, run);
}

/**
 * A {@link PoolQuery} over `connect` (the pool's checkout), with the span kysely's queries get
 * (db/query-spans.ts). The connection goes back as kysely gives it back: whole, and the pool drops
 * one that lost its server.
 *
 * A statement prepared on a connection before a migration changed the type of a column it reads
 * (a rolling upgrade) fails there from then on ("cached plan must not change result type"): that
 * connection is closed and the statement runs once more on another, which prepares it afresh.
 */
export function poolQuery(connect: () => Promise<PoolClient>): PoolQuery {
  const once = async (statement: PoolStatement, parameters: unknown[]) => {
    const client = await connect();
    let failed: unknown;
    try {
      const query = { name: statement.name, text: statement.sql, values: parameters };
      return (await client.query(query)).rows;
    } catch (error) {
      failed = error;
      throw error;
    } finally {
      client.release(isStalePlan(failed) ? (failed as Error) : undefined);
    }
  };
  return (statement, parameters) =>
    inQuerySpan(statement.span, () =>
      once(statement, parameters).catch((error: unknown) => {
        if (!isStalePlan(error)) throw error;
        return once(statement, parameters);
      }),
    );
}

/** The error of a prepared statement whose result's types a migration changed since. */
function isStalePlan(error: unknown): boolean {
  return (
    error instanceof Error &&
    (error as { code?: unknown }).code === '0A000' &&
    /cached plan must not change result type/.test(error.message)
  );
}

/**
 * The {@link PoolStatement} of a compiled query. Its name comes from its SQL, so a text always
 * has the one name and two texts never share one on a connection.
 */
export function poolStatement(query: CompiledQuery): PoolStatement {
  return { sql: query.sql, name: statementName(query.sql), span: querySpan(query, 'postgresql') };
}

/** The server-side name of the prepared statement `sql` ({@link PoolStatement}). */
export function statementName(sql: string): string {
  return `gw_${createHash('sha256').update(sql).digest('hex').slice(0, 32)}`;
}
