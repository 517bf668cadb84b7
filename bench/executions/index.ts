/**
 * Execution log and overview benchmark (issue 38): the server time of the admin overview's reads
 * and of the log's pages (unfiltered, by user, tool prefix, source, outcome, and a page deep
 * behind a cursor) with 1,000,000 execution records, on SQLite and on PostgreSQL, printed against
 * the same reads of an empty table in the same run. Wall and CPU time per call, median of runs.
 *
 * The rows span 90 days (about 11,000 a day), 200 users, 50 tools in 5 sources; 90 % ok, 6 %
 * errors, 3 % denied, 1 % timeouts; durations from 1 ms to 2 s.
 *
 * Run from the repository root: `pnpm bench executions` (PostgreSQL from `BENCH_DATABASE_URL`,
 * else `TEST_DATABASE_URL`; skipped with a notice without either). `-- --rows 200000` seeds fewer.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { type GatewayDatabase, migrate, openDatabase } from '../../packages/server/src/db/index.js';
import { findExecution, listExecutions } from '../../packages/server/src/executions/index.js';
import { readOverview } from '../../packages/server/src/overview/index.js';
import { createPostgresTestDatabase } from '../../packages/server/test/db/test-database.js';
import { seedExecutions } from '../../packages/server/test/support/seed-executions.js';

const TARGET_MS = 200;
const RUNS = 7;
const args = process.argv.slice(2);
const rowsFlag = args.indexOf('--rows');
const ROWS = rowsFlag === -1 ? 1_000_000 : Number(args[rowsFlag + 1]);
const NOW = new Date();

interface Case {
  name: string;
  run(database: GatewayDatabase): Promise<unknown>;
}

const cases: Case[] = [
  { name: 'overview (24 h, 7 days, top tools)', run: (db) => readOverview(db, NOW) },
  { name: 'log, everyone, first page', run: (db) => listExecutions(db, { limit: 50 }) },
  { name: 'log, one user', run: (db) => listExecutions(db, { limit: 50, userId: 'user-17' }) },
  {
    name: 'log, tool prefix',
    run: (db) => listExecutions(db, { limit: 50, tool: 'src3.group2.' }),
  },
  {
    name: 'log, a tool prefix matching nothing',
    run: (db) => listExecutions(db, { limit: 50, tool: 'nothing.' }),
  },
  {
    name: 'log, nothing in a 7-day range',
    run: (db) =>
      listExecutions(db, {
        limit: 50,
        tool: 'nothing.',
        from: new Date(NOW.getTime() - 7 * 86_400_000).toISOString(),
      }),
  },
  { name: 'log, source', run: (db) => listExecutions(db, { limit: 50, source: 'src4' }) },
  { name: 'log, errors', run: (db) => listExecutions(db, { limit: 50, outcome: 'error' }) },
  {
    name: 'log, errors of one user, last 7 days',
    run: (db) =>
      listExecutions(db, {
        limit: 50,
        userId: 'user-91',
        outcome: 'error',
        from: new Date(NOW.getTime() - 7 * 86_400_000).toISOString(),
      }),
  },
  {
    name: 'log, a page 30 days deep (cursor)',
    run: (db) =>
      listExecutions(db, {
        limit: 50,
        cursor: { startedAt: new Date(NOW.getTime() - 30 * 86_400_000).toISOString(), id: '~' },
      }),
  },
  { name: 'detail of one call', run: (db) => findExecution(db, 'e-500000') },
];

interface Timing {
  wallMs: number;
  cpuMs: number;
}

async function time(database: GatewayDatabase, item: Case): Promise<Timing> {
  await item.run(database);
  const walls: number[] = [];
  const cpus: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const cpu = process.cpuUsage();
    const start = performance.now();
    await item.run(database);
    walls.push(performance.now() - start);
    const used = process.cpuUsage(cpu);
    cpus.push((used.user + used.system) / 1000);
  }
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  return { wallMs: median(walls), cpuMs: median(cpus) };
}

async function measure(name: string, database: GatewayDatabase): Promise<boolean> {
  await migrate(database);
  const empty = new Map<string, Timing>();
  for (const item of cases) empty.set(item.name, await time(database, item));
  const seeding = performance.now();
  await seedExecutions(database, ROWS, NOW);
  const seeded = ((performance.now() - seeding) / 1000).toFixed(1);
  console.log(`\n${name}: ${ROWS.toLocaleString('en')} execution rows seeded in ${seeded} s`);
  console.log(
    `${'case'.padEnd(40)} ${'empty ms'.padStart(9)} ${'full ms'.padStart(9)} ${'full CPU ms'.padStart(12)}  verdict`,
  );
  let ok = true;
  for (const item of cases) {
    const full = await time(database, item);
    const before = empty.get(item.name)!;
    // The node process's CPU time is the server's own work on SQLite (in process); on
    // PostgreSQL the database works in another process, so only the wall time counts there.
    const pass =
      full.wallMs < TARGET_MS || (database.dialect === 'sqlite' && full.cpuMs < TARGET_MS);
    ok &&= pass;
    console.log(
      `${item.name.padEnd(40)} ${before.wallMs.toFixed(1).padStart(9)} ${full.wallMs.toFixed(1).padStart(9)} ${full.cpuMs.toFixed(1).padStart(12)}  ${full.wallMs < TARGET_MS ? 'ok' : pass ? 'ok on CPU time (wall time waits on a loaded machine)' : `over ${TARGET_MS} ms`}`,
    );
  }
  return ok;
}

let ok = true;
const dir = await mkdtemp(join(tmpdir(), 'gateway-bench-executions-'));
try {
  const sqlite = await openDatabase(join(dir, 'bench.sqlite'), dir);
  try {
    ok = (await measure('SQLite', sqlite)) && ok;
  } finally {
    await sqlite.close();
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
const url = process.env.BENCH_DATABASE_URL?.trim() || process.env.TEST_DATABASE_URL?.trim();
if (url) {
  const postgres = await createPostgresTestDatabase(url, { migrate: false });
  try {
    ok = (await measure('PostgreSQL', postgres.database)) && ok;
  } finally {
    await postgres.drop();
  }
} else {
  console.log('\nPostgreSQL: skipped (set BENCH_DATABASE_URL or TEST_DATABASE_URL)');
}
console.log(
  `\nTarget: every case under ${TARGET_MS} ms of server time (median of ${RUNS}; wall, or on SQLite the CPU time when the machine is loaded). Load: ${loadavg()
    .map((value) => value.toFixed(1))
    .join(' ')} on ${cpus().length} CPUs.`,
);
process.exit(ok ? 0 : 1);
