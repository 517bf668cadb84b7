import { type Compilable, CompiledQuery, type Kysely } from 'kysely';
import { batchedPoolQuery, bindValues } from './batched-query.js';
import { poolQueryOf, poolStatement } from './pool-query.js';
import type { DatabaseSchema } from './schema.js';

const MARK = '\u0000param:';

/** Runs a {@link prepareQuery} query with its named values; resolves to the rows. */
export type PreparedQuery<Name extends string, Row> = (
  values: Readonly<Record<Name, unknown>>,
) => Promise<Row[]>;

/**
 * Builds and compiles a query once, on its first run, then runs it with new values each time: for
 * queries on a hot path (every MCP call looks up its token and its role), where kysely's building
 * and compiling costs more than the database's answer. `build` receives `param(name)`, a stand-in
 * for each of `names` to use where its value goes; each run binds `values[name]` in its place.
 * Only stand-ins that kysely passes as parameters work (values in `where`, `set`, `values`), not
 * ones it writes into the SQL. Compiling waits for the first run (issue 37): services prepare
 * their queries as the gateway opens, and a start's first answer (`/healthz`) runs none of them,
 * so a start no longer compiles them (2.6% of its instructions).
 *
 * @example
 * // in the module that owns `table`
 * const findRole = prepareQuery(db, ['id'], (param) =>
 *   db.selectFrom(table).select(['id', 'name', 'patterns']).where('id', '=', param('id')),
 * );
 * const [row] = await findRole({ id: roleId });
 *
 * With `{ batch: true }`, on PostgreSQL the runs asked for in one turn of the event loop go to
 * the database as one statement (db/batched-query.ts); the named values must then be text.
 *
 * @throws Error (a rejection of each run) when a name's stand-in did not end up a parameter of
 * the SQL.
 */
export function prepareQuery<const Name extends string, Row>(
  db: Kysely<DatabaseSchema>,
  names: readonly Name[],
  build: (param: (name: Name) => string) => Compilable<Row>,
  options: { batch?: boolean } = {},
): PreparedQuery<Name, Row> {
  let prepared: Prepared | undefined;
  return async (values) => {
    prepared ??= compileOnce(db, names, build, options.batch === true);
    const { pool } = prepared;
    if (pool !== undefined) return (await pool(values)) as Row[];
    const parameters = bindValues(prepared, values);
    const result = await db.executeQuery<Row>(CompiledQuery.raw(prepared.sql, parameters));
    return result.rows;
  };
}

/** A compiled query and, for each of its parameters, the name of the value it takes. */
interface Prepared {
  sql: string;
  constants: readonly unknown[];
  /** Undefined for a constant of the query. */
  slots: readonly (string | undefined)[];
  /** PostgreSQL: the statement goes to the pool itself, not through kysely (db/pool-query.ts). */
  pool?: (values: Readonly<Record<string, unknown>>) => Promise<unknown[]>;
}

function compileOnce<Name extends string>(
  db: Kysely<DatabaseSchema>,
  names: readonly Name[],
  build: (param: (name: Name) => string) => Compilable<unknown>,
  batch: boolean,
): Prepared {
  const stands = new Map(names.map((name) => [`${MARK}${name}`, name]));
  const compiled = build((name) => `${MARK}${name}`).compile();
  const slots = compiled.parameters.map((value) =>
    typeof value === 'string' ? stands.get(value) : undefined,
  );
  for (const name of names) {
    if (!slots.includes(name)) {
      throw new Error(`prepareQuery: "${name}" is not a parameter of: ${compiled.sql}`);
    }
  }
  const statement = { sql: compiled.sql, constants: compiled.parameters, slots };
  const run = poolQueryOf(db);
  if (run === undefined) return statement;
  const single = poolStatement(compiled);
  if (batch) return { ...statement, pool: batchedPoolQuery(run, single, statement, names) };
  const pool = (values: Readonly<Record<string, unknown>>) =>
    run(single, bindValues(statement, values));
  return { ...statement, pool };
}
