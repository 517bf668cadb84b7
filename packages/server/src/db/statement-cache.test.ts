import { sql } from 'kysely';
import { describe, expect, it, onTestFinished } from 'vitest';
import { openDatabase } from './database.js';
import { SQLITE_MEMORY } from './sqlite.js';

// SQLite keeps statements prepared by SQL text (sqlite.ts); these pin down that reuse never shows.
describe('SQLite prepared statement reuse', () => {
  async function open() {
    const database = await openDatabase(SQLITE_MEMORY, '.');
    onTestFinished(() => database.close());
    await sql`create table notes (id integer primary key, body text not null)`.execute(database.db);
    await sql`insert into notes (body) values ('a'), ('b')`.execute(database.db);
    return database.db;
  }

  it('answers a repeated query from the current table, schema changes included', async () => {
    const db = await open();
    const all = () => sql`select * from notes order by id`.execute(db);
    expect((await all()).rows).toEqual([
      { id: 1, body: 'a' },
      { id: 2, body: 'b' },
    ]);

    await sql`alter table notes add column tag text`.execute(db);
    await sql`update notes set tag = 'x' where id = 2`.execute(db);

    expect((await all()).rows).toEqual([
      { id: 1, body: 'a', tag: null },
      { id: 2, body: 'b', tag: 'x' },
    ]);
  });

  it('serves more distinct queries than it keeps, and a query again after it was dropped', async () => {
    const db = await open();
    for (let n = 0; n < 300; n += 1) {
      const { rows } = await sql`select ${sql.lit(n)} as n, count(*) as c from notes`.execute(db);
      expect(rows).toEqual([{ n, c: 2 }]);
    }
    const { rows } = await sql`select ${sql.lit(0)} as n, count(*) as c from notes`.execute(db);
    expect(rows).toEqual([{ n: 0, c: 2 }]);
  });

  it('runs long statements, which it does not keep, as often as asked', async () => {
    const db = await open();
    for (const count of [250, 251, 250]) {
      const values = sql.join(Array.from({ length: count }, (_, i) => sql`(${`n${i}`})`));
      await sql`insert into notes (body) values ${values}`.execute(db);
    }
    const { rows } = await sql`select count(*) as c from notes`.execute(db);
    expect(rows).toEqual([{ c: 2 + 250 + 251 + 250 }]);
  });

  it('streams a query that it also keeps prepared', async () => {
    const db = await open();
    const query = db.selectFrom(sql.table('notes').as('n')).select(sql.ref('body').as('body'));
    const seen: unknown[] = [];
    for await (const row of query.stream()) {
      seen.push(row);
    }
    expect(seen).toEqual([{ body: 'a' }, { body: 'b' }]);
    expect(await query.execute()).toEqual([{ body: 'a' }, { body: 'b' }]);
  });
});
