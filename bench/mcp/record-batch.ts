/**
 * What the execution records' batch costs a record on a SQLite file, by itself: `BATCH_ROWS`
 * bench-like records a batch (a federated call's: one user, one endpoint, one tool, time-ordered
 * ids and start times) stored through `rowStore` (executions/record-rows.ts) as the recorder does.
 *
 * Two migrated databases in one process, `A` as migrated and `B` changed by `BATCH_B_DROP`
 * (comma-separated index names dropped) and `BATCH_B_SQL` (run after: an index to try), each
 * holding `BATCH_PREFILL` records first; their batches alternate, so the machine's load falls on
 * both alike. Prints each side's user and system CPU a record (`process.cpuUsage()` around each
 * batch, medians of `BATCH_ROUNDS` rounds), and with `BATCH_FRAMES=1` (no automatic checkpoint)
 * the WAL frames (pages) a batch commits. `BATCH_UPDATED` (0-1, default 0) is the share of a
 * batch's records that the batch before stored running: an update of their row, not an insert.
 *
 * @example
 * BATCH_B_DROP=executions_tool_path_idx pnpm exec tsx bench/mcp/record-batch.ts
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type GatewayDatabase, migrate, openDatabase } from '../../packages/server/src/db/index.js';
import { newExecutionId } from '../../packages/server/src/executions/execution-id.js';
import { type RowValues, rowStore } from '../../packages/server/src/executions/record-rows.js';

const ROWS = Number(process.env.BATCH_ROWS ?? 175);
const COUNT = Number(process.env.BATCH_COUNT ?? 100);
const ROUNDS = Number(process.env.BATCH_ROUNDS ?? 5);
const PREFILL = Number(process.env.BATCH_PREFILL ?? 50_000);
const UPDATED = Number(process.env.BATCH_UPDATED ?? 0);
const FRAMES = process.env.BATCH_FRAMES === '1';
const B_DROP = (process.env.BATCH_B_DROP ?? '').split(',').filter((name) => name !== '');
const B_SQL = process.env.BATCH_B_SQL ?? '';

const user = 'b0d4f3a0-6c1e-4f7e-9a51-2f1c3d4e5f60';
const endpoint = 'e7a1c2b3-4d5e-4f60-8a71-9b8c7d6e5f40';

interface Side {
  name: string;
  file: string;
  dir: string;
  database: GatewayDatabase;
  store: (rows: RowValues[]) => Promise<void>;
  user: number[];
  system: number[];
}

async function side(name: string, drop: string[], extra: string): Promise<Side> {
  const dir = mkdtempSync(join(tmpdir(), 'record-batch-'));
  const file = join(dir, 'gateway.db');
  const database = await openDatabase(file, dir);
  await migrate(database);
  const run = (body: Parameters<NonNullable<GatewayDatabase['runNow']>>[0]) => {
    if (database.runNow?.(body) !== true) throw new Error('connection busy');
  };
  for (const index of drop) run((connection) => connection.exec(`drop index "${index}"`));
  if (extra !== '') run((connection) => connection.exec(extra));
  run((connection) =>
    connection.exec(`
      with recursive n(i) as (select 1 union all select i + 1 from n where i < ${PREFILL})
      insert into executions (id, user_id, tool_path, started_at, duration_ms, outcome, arguments, endpoint_id)
      select printf('%08x-%04x-7%03x-8000-%012x', i / 65536, i % 65536, i % 4096, i), '${user}',
        'up.bench.echo.say',
        strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-29T12:00:00', '+' || (i * 0.3 / 1000.0) || ' seconds'),
        3, 'ok', '{"text":"hello"}', '${endpoint}'
      from n`),
  );
  run((connection) => connection.pragma('wal_checkpoint(TRUNCATE)'));
  if (FRAMES) run((connection) => connection.pragma('wal_autocheckpoint = 0'));
  return { name, file, dir, database, store: rowStore(database), user: [], system: [] };
}

let clock = Date.UTC(2026, 10, 30, 12);
function record(outcome: string | null): RowValues {
  clock += 0.3;
  return [
    newExecutionId(Math.floor(clock)),
    user,
    'up.bench.echo.say',
    new Date(clock).toISOString(),
    outcome === null ? null : 3,
    outcome,
    null,
    null,
    '{"text":"hello"}',
    null,
    endpoint,
    null,
  ];
}

/** Running rows stored by the batch before, finished in this one. */
let running: RowValues[] = [];
function nextBatch(): RowValues[] {
  const finished = running.map((row): RowValues => {
    const done = [...row] as unknown[];
    done[4] = 3;
    done[5] = 'ok';
    return done as unknown as RowValues;
  });
  running = Array.from({ length: Math.round(ROWS * UPDATED) }, () => record(null));
  const fresh = Array.from({ length: ROWS - finished.length - running.length }, () => record('ok'));
  return [...finished, ...fresh, ...running];
}

const sides = [await side('A', [], ''), await side('B', B_DROP, B_SQL)];
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;
// One warm-up round, then the measured ones; each batch is stored on both sides, in turn first.
const walBefore = new Map<Side, number>();
for (let round = 0; round <= ROUNDS; round++) {
  const used = sides.map(() => ({ user: 0, system: 0 }));
  if (round === 1) for (const each of sides) walBefore.set(each, statSync(`${each.file}-wal`).size);
  for (let index = 0; index < COUNT; index++) {
    const batch = nextBatch();
    const order = index % 2 === 0 ? [0, 1] : [1, 0];
    for (const at of order) {
      const before = process.cpuUsage();
      await (sides[at] as Side).store(batch);
      const spent = process.cpuUsage(before);
      (used[at] as { user: number }).user += spent.user;
      (used[at] as { system: number }).system += spent.system;
    }
  }
  if (round === 0) continue;
  sides.forEach((each, at) => {
    each.user.push((used[at] as { user: number }).user / (COUNT * ROWS));
    each.system.push((used[at] as { system: number }).system / (COUNT * ROWS));
  });
}
for (const each of sides) {
  const frames = (statSync(`${each.file}-wal`).size - (walBefore.get(each) ?? 0)) / (4096 + 24);
  console.log(
    JSON.stringify({
      side: each.name,
      rows: ROWS,
      updated: UPDATED,
      ...(each.name === 'B' ? { dropped: B_DROP, sql: B_SQL } : {}),
      userPerRecordUs: +median(each.user).toFixed(2),
      systemPerRecordUs: +median(each.system).toFixed(2),
      userRounds: each.user.map((value) => +value.toFixed(1)),
      ...(FRAMES ? { walFramesPerBatch: +(frames / (COUNT * ROUNDS)).toFixed(1) } : {}),
    }),
  );
  await each.database.close();
  rmSync(each.dir, { recursive: true, force: true });
}
