import { type PoolQuery, type PoolStatement, statementName } from './pool-query.js';
import { isDatabaseUnavailable } from './unavailable.js';

/** The most lookups one batched statement carries; more go in further statements. */
const MAX_BATCH = 256;

/** A statement compiled with its parameters: constants, and the named values' places. */
export interface SlottedStatement {
  sql: string;
  constants: readonly unknown[];
  /** For each parameter, the name of the value it takes (undefined: a constant). */
  slots: readonly (string | undefined)[];
}

interface Pending {
  values: Readonly<Record<string, unknown>>;
  resolve: (rows: unknown[]) => void;
  reject: (error: unknown) => void;
}

/**
 * Runs `single` (PostgreSQL, on the pool) so that the lookups asked for in one turn of the event
 * loop go to the database as one statement: each lookup's values are an element of one array per
 * name, and the statement runs once for each element (`unnest ... cross join lateral`); each
 * lookup resolves to its own rows. A lookup alone in its turn runs `single` itself. Every MCP
 * call looks up its token: on an instance that reads several requests a turn this saves most of
 * those round trips (issue 30 item 4), and every lookup still reads the database, so a revoked
 * token is refused at once.
 *
 * The named values must be text (or null): they travel as `text[]`. When a batch fails for any
 * reason but an unavailable database, its lookups run again one by one, so one lookup's bad
 * value fails only its own.
 *
 * @example
 * const lookup = batchedPoolQuery(run, single, { sql, constants, slots }, ['hash']);
 * const rows = await lookup({ hash });
 */
export function batchedPoolQuery(
  run: PoolQuery,
  single: PoolStatement,
  statement: SlottedStatement,
  names: readonly string[],
): (values: Readonly<Record<string, unknown>>) => Promise<unknown[]> {
  const sql = batchSql(statement, names);
  const batch: PoolStatement = { sql, name: statementName(sql), span: single.span };
  const { constants, slots } = statement;
  const alone = (pending: Pending) =>
    run(single, bindValues(statement, pending.values)).then(pending.resolve, pending.reject);
  const fixed = constants.filter((_, index) => slots[index] === undefined);
  const together = async (chunk: Pending[]) => {
    const arrays = names.map((name) => chunk.map((pending) => pending.values[name] ?? null));
    let rows: unknown[];
    try {
      rows = await run(batch, [...arrays, ...fixed]);
    } catch (error) {
      if (isDatabaseUnavailable(error)) for (const pending of chunk) pending.reject(error);
      else for (const pending of chunk) void alone(pending);
      return;
    }
    const results: unknown[][] = chunk.map(() => []);
    for (const row of rows as { gw_batch_index: string }[]) {
      const { gw_batch_index: index, ...rest } = row;
      results[Number(index) - 1]?.push(rest);
    }
    chunk.forEach((pending, index) => {
      pending.resolve(results[index] as unknown[]);
    });
  };
  let queued: Pending[] = [];
  const flush = () => {
    const taken = queued;
    queued = [];
    for (let at = 0; at < taken.length; at += MAX_BATCH) {
      const chunk = taken.slice(at, at + MAX_BATCH);
      if (chunk.length === 1) void alone(chunk[0] as Pending);
      else void together(chunk);
    }
  };
  return (values) =>
    new Promise<unknown[]>((resolve, reject) => {
      // After this turn's I/O callbacks: the requests read in one turn look up together.
      if (queued.length === 0) setImmediate(flush);
      queued.push({ values, resolve, reject });
    });
}

/** The parameters of `statement` for `values`: its constants, each named value in its place. */
export function bindValues(
  statement: SlottedStatement,
  values: Readonly<Record<string, unknown>>,
): unknown[] {
  return statement.constants.map((constant, index) => {
    const name = statement.slots[index];
    return name === undefined ? constant : values[name];
  });
}

/**
 * The batched form of `statement`: its named values' parameters become columns of the unnested
 * arrays (`$1` to `$n`, one per name), its constants the parameters after them.
 */
export function batchSql(statement: SlottedStatement, names: readonly string[]): string {
  let constant = names.length;
  const numbers = statement.slots.map((slot) => (slot === undefined ? ++constant : undefined));
  const inner = statement.sql.replace(/\$(\d+)/g, (_, digits: string) => {
    const index = Number(digits) - 1;
    const slot = statement.slots[index];
    return slot === undefined ? `$${numbers[index]}` : `"gw_batch"."${slot}"`;
  });
  const arrays = names.map((_, index) => `$${index + 1}::text[]`).join(', ');
  const columns = [...names, 'gw_batch_index'].map((name) => `"${name}"`).join(', ');
  return (
    `select "gw_batch"."gw_batch_index", "gw_row".* from unnest(${arrays}) with ordinality ` +
    `as "gw_batch"(${columns}) cross join lateral (${inner}) as "gw_row"`
  );
}
