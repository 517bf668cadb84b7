/**
 * Instructions a PostgreSQL query costs the gateway, counted by valgrind (callgrind) so the
 * machine's load does not move the figure (issue 30 item 4). Runs `QUERY_WARMUP` (1,000) queries,
 * then `count` more one at a time, through the path named:
 *
 * - `prepared`: a `prepareQuery` query of the gateway's database, as a call's token lookup runs;
 * - `kysely`: the same compiled query through kysely's `executeQuery` (the path `prepareQuery`
 *   took before 2026-11-29 night);
 * - `pool`: `client.query` on a client of a bare `pg` pool, no gateway code (a reference).
 * - `batched`: the same query prepared with `{ batch: true }`, `QUERY_BATCH` (8) lookups asked for
 *   in each turn (db/batched-query.ts: one statement a turn), `count` lookups in all.
 *
 * Count a run of 500 and one of 2,500 under callgrind; the difference ÷ 2,000 is one query's
 * instructions, with the process's start and warm-up cancelled out:
 *
 * ```
 * valgrind --tool=callgrind --callgrind-out-file=/tmp/q.%p \
 *   node --import tsx bench/scale/query-instructions.ts prepared 500
 * ```
 *
 * With `QUERY_HANDSHAKE=1` it writes `warm` after the warm-up and `done` after the counted
 * queries, each time waiting for a line on stdin: a driver run with `--instr-atstart=no` turns
 * callgrind's counting on (`callgrind_control -i on`) and dumps it (`-d`) in between, so the
 * counts hold those queries alone (query-instructions.py).
 *
 * `TEST_DATABASE_URL` (or `BENCH_DATABASE_URL`) names the PostgreSQL server.
 */
import { createRequire } from 'node:module';
import type pgTypes from 'pg';
import { openDatabase } from '../../packages/server/src/db/index.js';
import { prepareQuery } from '../../packages/server/src/db/prepared-query.js';

// The server's dependencies, which the repository's root does not list.
const pg = createRequire(new URL('../../packages/server/package.json', import.meta.url))(
  'pg',
) as typeof pgTypes;

const url = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
if (url === undefined) throw new Error('set TEST_DATABASE_URL to a PostgreSQL server');
const [path = 'prepared', countText = '500'] = process.argv.slice(2);
const count = Number(countText);
const warmup = Number(process.env.QUERY_WARMUP ?? 1000);

async function runner(): Promise<{ run: (i: number) => Promise<unknown>; close: () => unknown }> {
  if (path === 'pool') {
    const pool = new pg.Pool({ connectionString: url, connectionTimeoutMillis: 5000 });
    return {
      run: async (i) => {
        const client = await pool.connect();
        try {
          return (await client.query('select $1::text as a, $2::int as b', ['x', i])).rows;
        } finally {
          client.release();
        }
      },
      close: () => pool.end(),
    };
  }
  const database = await openDatabase(url, '.', { connectTimeoutMs: 5000 });
  const { db } = database;
  const query = prepareQuery(db, ['a', 'b'], (param) =>
    db.selectNoFrom((eb) => [eb.val(param('a')).as('a'), eb.val(param('b')).as('b')]),
  );
  if (path === 'prepared') return { run: (i) => query({ a: 'x', b: i }), close: database.close };
  if (path === 'batched') {
    const lookup = prepareQuery(
      db,
      ['a', 'b'],
      (param) => db.selectNoFrom((eb) => [eb.val(param('a')).as('a'), eb.val(param('b')).as('b')]),
      { batch: true },
    );
    const batch = Number(process.env.QUERY_BATCH ?? 8);
    // One step asks for a turn's lookups; the loops below count steps, so `count` ÷ batch.
    step = batch;
    return {
      run: (i) =>
        Promise.all(
          Array.from({ length: batch }, (_, at) => lookup({ a: 'x', b: String(i + at) })),
        ),
      close: database.close,
    };
  }
  if (path === 'kysely') {
    const compiled = db.selectNoFrom((eb) => [eb.val('x').as('a'), eb.val(0).as('b')]).compile();
    return {
      run: (i) => db.executeQuery({ ...compiled, parameters: ['x', i] }),
      close: database.close,
    };
  }
  throw new Error(`unknown path "${path}": prepared, batched, kysely or pool`);
}

/** Lookups one run makes (`batched`: a turn's). */
let step = 1;
const { run, close } = await runner();
for (let i = 0; i < warmup; i += step) await run(i);
if (process.env.QUERY_HANDSHAKE === '1') await handshake('warm');
for (let i = 0; i < count; i += step) await run(i);
if (process.env.QUERY_HANDSHAKE === '1') await handshake('done');
await close();

/** Says `word` on stdout and waits for a line on stdin (the driver toggling callgrind). */
async function handshake(word: string): Promise<void> {
  process.stdout.write(`${word}\n`);
  await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()).resume());
  process.stdin.pause();
}
