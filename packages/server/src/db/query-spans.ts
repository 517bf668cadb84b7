import { trace } from '@opentelemetry/api';
import type { CompiledQuery, DatabaseConnection, Dialect, Driver } from 'kysely';
import { inSpan } from '../tracing/tracer.js';

/** The OpenTelemetry names of the two databases. */
const SYSTEMS = { sqlite: 'sqlite', postgres: 'postgresql' } as const;

/** Connections whose queries are already wrapped (a pool hands the same ones out again). */
const wrapped = new WeakSet<DatabaseConnection>();

/**
 * `dialect` with a span per query (`SELECT roles`, `db.operation.name`, `db.collection.name`)
 * when the query runs inside a traced request; outside one (a sweep, a migration, an untraced
 * health check), or with tracing off, the query runs as it was, at the cost of one check. Spans
 * name the operation and table only: never the SQL text's values nor a parameter.
 */
export function withQuerySpans(dialect: Dialect, system: keyof typeof SYSTEMS): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createDriver: () => tracedDriver(dialect.createDriver(), SYSTEMS[system]),
  };
}

function tracedDriver(driver: Driver, system: string): Driver {
  const acquire = driver.acquireConnection.bind(driver);
  // The same object, so the driver's own methods (release, transactions) see their connection.
  driver.acquireConnection = async (options) => {
    const connection = await acquire(options);
    if (!wrapped.has(connection)) {
      wrapped.add(connection);
      const execute = connection.executeQuery.bind(connection);
      connection.executeQuery = (query, queryOptions) => {
        if (trace.getActiveSpan() === undefined) return execute(query, queryOptions);
        return inQuerySpan(querySpan(query, system), () => execute(query, queryOptions));
      };
    }
    return connection;
  };
  return driver;
}

/** A query's span: its name and attributes, from its operation and first table only. */
export interface QuerySpan {
  name: string;
  attributes: Record<string, string>;
}

/**
 * The span of `query` on `system` (`postgresql`, `sqlite`), for a query run outside kysely's
 * driver (db/pool-query.ts), which works it out once rather than per run.
 */
export function querySpan(query: CompiledQuery, system: string): QuerySpan {
  const { operation, table } = summary(query);
  const name = table === undefined ? operation : `${operation} ${table}`;
  return {
    name,
    attributes: {
      'db.system.name': system,
      'db.operation.name': operation,
      'db.query.summary': name,
      ...(table === undefined ? {} : { 'db.collection.name': table }),
    },
  };
}

/** Runs `run` in `span` inside a traced request; outside one, as it is. */
export function inQuerySpan<T>(span: QuerySpan, run: () => Promise<T>): Promise<T> {
  if (trace.getActiveSpan() === undefined) return run();
  return inSpan(span.name, span.attributes, run);
}

const KINDS: Readonly<Record<string, string>> = {
  SelectQueryNode: 'SELECT',
  InsertQueryNode: 'INSERT',
  UpdateQueryNode: 'UPDATE',
  DeleteQueryNode: 'DELETE',
  MergeQueryNode: 'MERGE',
};

/** The operation and first table of a query, from its tree or (raw SQL) its first words. */
function summary(query: CompiledQuery): { operation: string; table?: string } {
  const operation = KINDS[query.query.kind];
  const sqlText = query.sql;
  const verb = /^\s*(\w+)/.exec(sqlText)?.[1]?.toUpperCase() ?? 'QUERY';
  const table = /\b(?:from|into|update|table)\s+"?([A-Za-z_][\w]*)"?/i.exec(sqlText)?.[1];
  // A verb that is not a plain word of SQL (never happens) is not echoed into a span.
  const named = operation ?? (/^[A-Z]{1,16}$/.test(verb) ? verb : 'QUERY');
  return table === undefined ? { operation: named } : { operation: named, table };
}
