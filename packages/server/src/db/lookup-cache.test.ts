import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { createPostgresTestDatabase, postgresTestUrl } from '#test/db/test-database.js';
import { closeAbandonedExecutions } from '../executions/close-abandoned.js';
import { newExecutionId } from '../executions/execution-id.js';
import { ExecutionRecorder } from '../executions/recorder.js';
import { createLogger } from '../http/logger.js';
import { Redactor } from '../http/redact.js';
import { recordEndpointUse } from '../mcp-endpoints/token-query.js';
import { type GatewayDatabase, openDatabase } from './database.js';
import { LookupCache } from './lookup-cache.js';
import { migrate } from './migrate.js';

const pgUrl = postgresTestUrl();
const require = createRequire(import.meta.url);

/** Two connections to one SQLite file, as two gateway processes on one data dir have. */
async function twoConnections(): Promise<[GatewayDatabase, GatewayDatabase, string]> {
  const dir = await mkdtemp(join(tmpdir(), 'gateway-mark-'));
  const file = join(dir, 'gateway.db');
  const first = await openDatabase(file, dir);
  await migrate(first);
  const second = await openDatabase(file, dir);
  onTestFinished(async () => {
    await first.close();
    await second.close();
    await rm(dir, { recursive: true, force: true });
  });
  return [first, second, file];
}

async function addRole(database: GatewayDatabase, id: string) {
  const now = new Date().toISOString();
  await database.db
    .insertInto('roles')
    .values({ id, name: id, patterns: '["*"]', created_at: now, updated_at: now })
    .execute();
}

/**
 * A second process on the database: `role <id>` commits a role, `checkpoint` checkpoints the WAL
 * to its start and commits a role after it (the WAL restarts); each answers `ok`.
 */
const WRITER = `
const Database = require(process.env.BETTER_SQLITE3);
const database = new Database(process.env.DATABASE);
database.pragma('busy_timeout = 5000');
const add = (id) => database
  .prepare("insert into roles (id, name, patterns, created_at, updated_at) values (?, ?, '[]', '', '')")
  .run(id, id);
let n = 0;
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const [command, id] = line.split(' ');
  if (command === 'role') add(id);
  else { database.pragma('wal_checkpoint(TRUNCATE)'); add('after-checkpoint-' + n++); }
  process.stdout.write('ok\\n');
});
`;

/** Lets the event loop finish its turn (the change mark forgets what it read). */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

describe('SQLite change mark', () => {
  it('stays while the database is only read', async () => {
    const [database] = await twoConnections();
    const mark = database.changeMark();
    await database.db.selectFrom('roles').selectAll().execute();
    expect(database.changeMark()).toBe(mark);
  });

  it("changes with the connection's own writes", async () => {
    const [database] = await twoConnections();
    const mark = database.changeMark();
    await addRole(database, 'writers');
    expect(database.changeMark()).not.toBe(mark);
  });

  it("changes with another connection's commits once refreshed, and after the event loop's turn", async () => {
    const [database, other] = await twoConnections();
    const mark = database.changeMark();
    await addRole(other, 'elsewhere');
    database.refreshChangeMark(false);
    const changed = database.changeMark();
    expect(changed).not.toBe(mark);

    await addRole(other, 'later');
    await nextTurn();
    expect(database.changeMark()).not.toBe(changed);
  });

  it('is refreshed once a turn for requests from the network, always for in-process ones', async () => {
    const [database, other] = await twoConnections();
    await nextTurn();
    // The clock stands still: on a loaded machine the commit below can outlast the few
    // milliseconds a shared refresh lasts (the next test covers that bound).
    const clock = vi.spyOn(performance, 'now').mockReturnValue(performance.now());
    database.refreshChangeMark(true);
    const first = database.changeMark();
    // Taken from the network together with the first request: it cannot follow this commit.
    await addRole(other, 'same-turn');
    database.refreshChangeMark(true);
    expect(database.changeMark()).toBe(first);
    clock.mockRestore();
    // An in-process request may follow it (its caller awaited the commit in this turn).
    database.refreshChangeMark(false);
    const inProcess = database.changeMark();
    expect(inProcess).not.toBe(first);

    // The next turn's requests see what was committed before it.
    await addRole(other, 'next-turn');
    await nextTurn();
    database.refreshChangeMark(true);
    expect(database.changeMark()).not.toBe(inProcess);
  });

  it('shares a refresh among requests from the network for a few milliseconds at most', async () => {
    const [database, other] = await twoConnections();
    await nextTurn();
    database.refreshChangeMark(true);
    const first = database.changeMark();
    await addRole(other, 'long-turn');
    const until = performance.now() + 10;
    while (performance.now() < until) {
      // A turn busy with over a thousand requests.
    }
    database.refreshChangeMark(true);
    expect(database.changeMark()).not.toBe(first);
  });

  it('stays while execution records and token use times are written, as their writers mark them', async () => {
    const [database] = await twoConnections();
    const mark = database.changeMark();
    const recorder = new ExecutionRecorder({
      database,
      logger: createLogger({ write() {} }, new Redactor()),
    });
    const record = { id: newExecutionId(), userId: 'u1', toolPath: 'demo.echo.say' };
    recorder.write({ ...record, startedAt: new Date(), arguments: {} });
    await recorder.flush();
    // The sweeper closes the open record through kysely, marked as an unmarked write.
    const later = new Date(Date.now() + 3_600_000);
    expect(await closeAbandonedExecutions(database, { now: later, windowMs: 1000 })).toBe(1);
    recordEndpointUse(database.db, 'e1');
    // kysely runs one statement at a time, in order: the token's write has run after this read.
    expect(await database.db.selectFrom('executions').select('outcome').execute()).toEqual([
      { outcome: 'timeout' },
    ]);
    expect(database.changeMark()).toBe(mark);
    // The same statement not marked by its writer counts, like any other change to the table.
    await database.db
      .updateTable('mcp_endpoints')
      .set({ last_used_at: new Date().toISOString() })
      .where('id', '=', 'e1')
      .execute();
    const changed = database.changeMark();
    expect(changed).not.toBe(mark);
    await database.db.deleteFrom('mcp_endpoints').where('id', '=', 'e1').execute();
    expect(database.changeMark()).not.toBe(changed);
  });

  it('sees every commit of another process, through checkpoints and restarts of the WAL', async () => {
    const [database, , file] = await twoConnections();
    // Another gateway process on the same file: its commits reach this one only through the
    // file, as the WAL index header and data_version see them.
    const writer = spawn(process.execPath, ['-e', WRITER], {
      env: { ...process.env, BETTER_SQLITE3: require.resolve('better-sqlite3'), DATABASE: file },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    onTestFinished(() => {
      writer.kill();
    });
    const lines = createInterface({ input: writer.stdout });
    const done = lines[Symbol.asyncIterator]();
    const ask = async (command: string) => {
      writer.stdin.write(`${command}\n`);
      const answer = await done.next();
      expect(answer.value).toBe('ok');
    };
    let previous = database.changeMark();
    for (let round = 0; round < 30; round++) {
      database.refreshChangeMark(false);
      expect(database.changeMark()).toBe(previous);
      await ask(round % 7 === 6 ? 'checkpoint' : `role r${round}`);
      database.refreshChangeMark(false);
      const now = database.changeMark();
      expect(now, `round ${round}`).not.toBe(previous);
      previous = now;
    }
  });

  it.skipIf(!pgUrl)('is undefined on PostgreSQL, which cannot tell cheaply', async () => {
    const { database, drop } = await createPostgresTestDatabase(pgUrl as string);
    onTestFinished(drop);
    expect(database.changeMark()).toBeUndefined();
  });
});

describe('LookupCache', () => {
  it('answers from memory until the database changes, on any connection', async () => {
    const [database, other] = await twoConnections();
    const cache = new LookupCache<string>(database);
    let reads = 0;
    const read = async () => {
      reads += 1;
      return `read ${reads}`;
    };

    expect(await cache.get('k', read)).toBe('read 1');
    expect(await cache.get('k', read)).toBe('read 1');
    await addRole(database, 'here');
    expect(await cache.get('k', read)).toBe('read 2');
    await addRole(other, 'there');
    database.refreshChangeMark(false); // as each HTTP request does
    expect(await cache.get('k', read)).toBe('read 3');
    expect(reads).toBe(3);
  });

  it('keeps no misses, and nothing read while the database changed', async () => {
    const [database] = await twoConnections();
    const cache = new LookupCache<string>(database);
    let reads = 0;
    const miss = async () => {
      reads += 1;
      return undefined;
    };
    expect(await cache.get('missing', miss)).toBeUndefined();
    expect(await cache.get('missing', miss)).toBeUndefined();
    expect(reads).toBe(2);

    // The value was read before a change landed: it may be stale, so the next get reads again.
    const racing = async () => {
      reads += 1;
      await addRole(database, `raced-${reads}`);
      return 'old';
    };
    expect(await cache.get('k', racing)).toBe('old');
    expect(await cache.get('k', async () => 'new')).toBe('new');
  });

  it('starts over when full', async () => {
    const [database] = await twoConnections();
    const cache = new LookupCache<string>(database, 2);
    let reads = 0;
    const read = async () => `v${++reads}`;
    await cache.get('a', read);
    await cache.get('b', read);
    await cache.get('c', read); // full: starts over with c alone
    expect(await cache.get('c', read)).toBe('v3');
    expect(await cache.get('a', read)).toBe('v4');
  });

  it.skipIf(!pgUrl)('reads every time on PostgreSQL', async () => {
    const { database, drop } = await createPostgresTestDatabase(pgUrl as string);
    onTestFinished(drop);
    const cache = new LookupCache<number>(database);
    let reads = 0;
    const read = async () => ++reads;
    await cache.get('k', read);
    await cache.get('k', read);
    expect(reads).toBe(2);
  });
});
