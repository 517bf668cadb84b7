import { trace } from '@opentelemetry/api';
import { CompiledQuery } from 'kysely';
import pg from 'pg';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { createPostgresTestDatabase, postgresTestUrl } from '#test/db/test-database.js';
import { freePort } from '#test/support/free-port.js';
import { recordSpans } from '#test/support/recorded-spans.js';
import { rowStore, rowValues } from '../executions/record-rows.js';
import { poolQuery, poolQueryOf, poolStatement } from './pool-query.js';
import { prepareQuery } from './prepared-query.js';
import { isDatabaseUnavailable } from './unavailable.js';

// Issue 30 item 4: the two statements of every MCP call on PostgreSQL (its token's lookup, its
// record's upsert) go to the pool itself, not through kysely's executor and driver.

const { exporter } = recordSpans();

const url = postgresTestUrl();

async function open() {
  const { database, drop } = await createPostgresTestDatabase(url as string);
  onTestFinished(drop);
  return database;
}

const ROLE = { patterns: '[]', created_at: '2026-01-01', updated_at: '2026-01-01' };

describe.skipIf(url === undefined)('statements on the PostgreSQL pool outside kysely', () => {
  it("run a prepared query and the records' upsert without kysely's executor", async () => {
    const database = await open();
    const { db } = database;
    await db
      .insertInto('roles')
      .values({ id: 'pool-a', name: 'A', ...ROLE })
      .execute();
    const byId = prepareQuery(db, ['id'], (param) =>
      db.selectFrom('roles').select(['id', 'name']).where('id', '=', param('id')),
    );
    const store = rowStore(database);
    const throughKysely = vi.spyOn(db, 'executeQuery');

    expect(await byId({ id: 'pool-a' })).toEqual([{ id: 'pool-a', name: 'A' }]);
    expect(await byId({ id: 'none' })).toEqual([]);
    await store([
      rowValues({
        id: 'ex-pool',
        user_id: 'u',
        tool_path: 'a.b',
        started_at: '2026-01-01T00:00:00.000Z',
        arguments: '{}',
      }),
    ]);
    expect(throughKysely).not.toHaveBeenCalled();
    throughKysely.mockRestore();
    const stored = await db.selectFrom('executions').select('tool_path').execute();
    expect(stored).toEqual([{ tool_path: 'a.b' }]);
  });

  it("a query prepared on a transaction runs on the transaction's connection", async () => {
    const { db } = await open();
    expect(poolQueryOf(db)).toBeDefined();
    await db.transaction().execute(async (trx) => {
      expect(poolQueryOf(trx)).toBeUndefined();
      await trx
        .insertInto('roles')
        .values({ id: 'pool-uncommitted', name: 'U', ...ROLE })
        .execute();
      const byId = prepareQuery(trx, ['id'], (param) =>
        trx.selectFrom('roles').select('name').where('id', '=', param('id')),
      );
      expect(await byId({ id: 'pool-uncommitted' })).toEqual([{ name: 'U' }]);
    });
  });

  it('keep the span of each query, naming its operation and table, never a value', async () => {
    const { db } = await open();
    const byId = prepareQuery(db, ['id'], (param) =>
      db.selectFrom('roles').select('name').where('id', '=', param('id')),
    );
    exporter.reset();
    await trace.getTracer('test').startActiveSpan('request', async (span) => {
      await byId({ id: 'secret-looking-value' });
      span.end();
    });
    const spans = exporter.getFinishedSpans();
    const request = spans.find((span) => span.name === 'request');
    const query = spans.find((span) => span.name === 'SELECT roles');
    expect(query?.attributes).toEqual({
      'db.system.name': 'postgresql',
      'db.operation.name': 'SELECT',
      'db.query.summary': 'SELECT roles',
      'db.collection.name': 'roles',
    });
    expect(query?.parentSpanContext?.spanId).toBe(request?.spanContext().spanId);

    // Outside a traced request, no span.
    exporter.reset();
    await byId({ id: 'x' });
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it("pass on the driver's error, so a server away still reads as unavailable (503)", async () => {
    const pool = new pg.Pool({
      connectionString: `postgres://nobody@127.0.0.1:${await freePort()}/none`,
      connectionTimeoutMillis: 1000,
    });
    pool.on('error', () => {});
    onTestFinished(() => pool.end());
    const run = poolQuery(() => pool.connect());
    const failed = await run(poolStatement(CompiledQuery.raw('select 1')), []).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isDatabaseUnavailable(failed)).toBe(true);
  });
});
