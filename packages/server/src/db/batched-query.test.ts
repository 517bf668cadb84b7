import { sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createPostgresTestDatabase, postgresTestUrl } from '#test/db/test-database.js';
import { batchSql } from './batched-query.js';
import { prepareQuery } from './prepared-query.js';

// Issue 30 item 4: a PostgreSQL instance looks up the tokens of the requests it reads in one turn
// in one statement, and each statement is parsed once per connection (a named statement).

const url = postgresTestUrl();

async function open() {
  const { database, drop } = await createPostgresTestDatabase(url as string);
  onTestFinished(drop);
  const { db } = database;
  await db
    .insertInto('roles')
    .values(
      ['batch-a', 'batch-b'].map((id) => ({
        id,
        name: id.toUpperCase(),
        patterns: '[]',
        created_at: '2026-01-01',
        updated_at: '2026-01-01',
      })),
    )
    .execute();
  return db;
}

/** The texts of the statements every pg client of this process sends from now on. */
function sentStatements(): string[] {
  const texts: string[] = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const [first] = args;
    texts.push(typeof first === 'string' ? first : String((first as { text?: string }).text));
    return Reflect.apply(query, this, args);
  } as typeof query;
  onTestFinished(() => {
    pg.Client.prototype.query = query;
  });
  return texts;
}

describe.skipIf(url === undefined)('batched lookups on PostgreSQL', () => {
  it('answer the lookups of one turn with one statement, each with its own rows', async () => {
    const db = await open();
    const byId = prepareQuery(
      db,
      ['id', 'name'],
      (param) =>
        db
          .selectFrom('roles')
          .select(['id', 'name'])
          .where('id', '=', param('id'))
          .where((eb) => eb.or([eb('name', '=', param('name')), eb('patterns', '=', '[]')])),
      { batch: true },
    );
    await byId({ id: 'warm', name: 'x' });
    const sent = sentStatements();

    const answers = await Promise.all([
      byId({ id: 'batch-a', name: 'x' }),
      byId({ id: 'nobody', name: 'x' }),
      byId({ id: 'batch-b', name: null }),
      byId({ id: 'batch-a', name: 'x' }),
    ]);
    expect(answers).toEqual([
      [{ id: 'batch-a', name: 'BATCH-A' }],
      [],
      [{ id: 'batch-b', name: 'BATCH-B' }],
      [{ id: 'batch-a', name: 'BATCH-A' }],
    ]);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toContain('unnest($1::text[], $2::text[])');

    // Alone in its turn, a lookup runs the plain statement.
    sent.length = 0;
    expect(await byId({ id: 'batch-b', name: 'x' })).toEqual([{ id: 'batch-b', name: 'BATCH-B' }]);
    expect(sent).toHaveLength(1);
    expect(sent[0]).not.toContain('unnest');
  });

  it('fail only the lookup whose value the database refuses, and see each write at once', async () => {
    const db = await open();
    const byId = prepareQuery(
      db,
      ['id'],
      (param) => db.selectFrom('roles').select('name').where('id', '=', param('id')),
      { batch: true },
    );
    const [good, bad] = await Promise.allSettled([
      byId({ id: 'batch-a' }),
      // PostgreSQL refuses a NUL in text: the batch fails, and its lookups run again one by one.
      byId({ id: 'bad\u0000value' }),
    ]);
    expect(good).toEqual({ status: 'fulfilled', value: [{ name: 'BATCH-A' }] });
    expect(bad.status).toBe('rejected');

    // No lookup is kept: a row deleted is gone for the next lookup.
    await db.deleteFrom('roles').where('id', '=', 'batch-a').execute();
    const again = await Promise.all([byId({ id: 'batch-a' }), byId({ id: 'batch-b' })]);
    expect(again).toEqual([[], [{ name: 'BATCH-B' }]]);
  });

  it('parse each statement once per connection (a named, server-side prepared statement)', async () => {
    const db = await open();
    const byId = prepareQuery(db, ['id'], (param) =>
      db.selectFrom('roles').select('name').where('id', '=', param('id')),
    );
    const readPrepared = prepareQuery(db, ['like'], (param) =>
      db
        .selectFrom('pg_prepared_statements' as never)
        .select('statement' as never)
        .where('statement' as never, 'like', param('like') as never),
    );
    await byId({ id: 'batch-a' });
    // One connection serves lookups one at a time: the statement is prepared on it.
    const prepared = await readPrepared({ like: '%from "roles"%' });
    expect(prepared).toEqual([{ statement: 'select "name" from "roles" where "id" = $1' }]);
  });

  it('prepare a statement afresh after a migration changed the type of a column it reads', async () => {
    const db = await open();
    const byId = prepareQuery(db, ['id'], (param) =>
      db.selectFrom('roles').select('name').where('id', '=', param('id')),
    );
    expect(await byId({ id: 'batch-a' })).toEqual([{ name: 'BATCH-A' }]);
    // As a newer instance's migration would, while this one runs (a rolling upgrade).
    await sql`alter table roles alter column name type varchar(200)`.execute(db);
    expect(await byId({ id: 'batch-a' })).toEqual([{ name: 'BATCH-A' }]);
    expect(await byId({ id: 'batch-b' })).toEqual([{ name: 'BATCH-B' }]);
  });
});

describe('a batched statement', () => {
  it('takes the named values from unnested text arrays and renumbers the constants', () => {
    expect(
      batchSql(
        {
          sql: 'select a from t where x = $1 and y = $2 and z = $3',
          constants: [],
          slots: [undefined, 'id', undefined],
        },
        ['id'],
      ),
    ).toBe(
      'select "gw_batch"."gw_batch_index", "gw_row".* from unnest($1::text[]) with ordinality ' +
        'as "gw_batch"("id", "gw_batch_index") cross join lateral ' +
        '(select a from t where x = $2 and y = "gw_batch"."id" and z = $3) as "gw_row"',
    );
  });
});
