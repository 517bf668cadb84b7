/**
 * Scale benchmark (issue 30): the same MCP load through haproxy (deploy/haproxy.cfg as shipped)
 * to one `gateway-server` on PostgreSQL, to three on PostgreSQL, and to one on SQLite, in one
 * run. The load is echo `tools/call`s from 16 concurrent clients: half 2026-07-28 stateless calls,
 * half calls in 2025 sessions (`Mcp-Session-Id`, which the balancer keeps on one instance).
 *
 * Prints, for each setup, calls per second, p50/p99 latency, and the gateways' CPU time per call
 * (all instances together, from /proc; in brackets less what they spend with no call, sampled for
 * 3 s before each round: at a few dozen calls per second, timers and health checks of three
 * instances are a large share of it), then the ratios the targets are about: CPU per call of 3
 * instances ÷ 1 (target <= 1.3: a second instance adds capacity, not cost), PostgreSQL ÷ SQLite
 * (target <= 2), and throughput 3 ÷ 1 (which the machine's cores bound: on 2 vCPUs shared with
 * the load generator and haproxy, three instances cannot do three times one's work). Each
 * round's line also splits the CPU into the main threads' and the rest (V8's and libuv's threads)
 * and counts the main threads' sleeps per call. The setups run side by side and their rounds
 * alternate, so a shared machine's changing load falls on each alike.
 *
 * Settings: `BENCH_SCALE_CALLS` (measured calls per setup, default 3000), `BENCH_SCALE_WARMUP`
 * (warm-up calls per instance, default 1000), `BENCH_SCALE_CONCURRENCY` (default 16), `BENCH_SCALE_ROUNDS` (default 2: each
 * setup measured that many times, in turn with the others, medians printed), `BENCH_DATABASE_URL` (default
 * `TEST_DATABASE_URL`; each PostgreSQL setup runs in a fresh schema, dropped at the end),
 * `BENCH_SCALE_SETUPS` (default `pg1,pg3,sqlite1`: the setups run, for experiments; four more run
 * only when named, to tell apart the two parts of 3 ÷ 1: `pg1-third`, one instance given a third
 * of the clients, as each of three gets, and `pg3-triple`, three instances given three times the
 * clients, as many each as the single one gets; `pg2` and `pg1-half` are the same pair for two
 * instances), `BENCH_SCALE_NODE_FLAGS` (Node options given to every gateway of every setup, e.g. a
 * V8 flag being weighed; none by default, as `gateway-server` runs).
 *
 * Run from the repository root: `pnpm bench scale`, which builds the Gateway first (the Gateway
 * measured is `packages/server/dist`, as `gateway-server` runs it). Needs Debian's haproxy.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../scripts/free-port.mjs';
import { endpointToken } from '../../scripts/gateway-endpoint.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'packages/server/dist/bin.js');
const plugin = join(root, 'packages/server/test/support/fixtures/scale-plugin.ts');
/** node-postgres, from the server package's dependencies (bench/ has none). */
const pg = createRequire(join(root, 'packages/server/package.json'))('pg') as {
  Client: new (config: {
    connectionString?: string;
  }) => {
    connect(): Promise<void>;
    query(sql: string): Promise<unknown>;
    end(): Promise<void>;
  };
};

const CALLS = Number(process.env.BENCH_SCALE_CALLS ?? 3000);
const WARMUP = Number(process.env.BENCH_SCALE_WARMUP ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_SCALE_CONCURRENCY ?? 16);
const ROUNDS = Number(process.env.BENCH_SCALE_ROUNDS ?? 2);
/** Node options given to every gateway of every setup alike (e.g. a V8 flag being weighed). */
const NODE_FLAGS = process.env.BENCH_SCALE_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];
/** How long the gateways' CPU is sampled with no call before each round. */
const IDLE_MS = 3000;
const databaseUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const haproxy = ['/usr/sbin/haproxy', '/usr/bin/haproxy'].find((path) => existsSync(path));
const TOOL = 'scale.echo.say';
/** Clock ticks per second of /proc's CPU times. */
const TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

if (!existsSync(bin)) {
  console.error('error: the Gateway is not built; run `pnpm bench scale`, which builds it first');
  process.exit(2);
}
if (haproxy === undefined) {
  console.error('error: haproxy is not installed (apt-get install haproxy)');
  process.exit(2);
}
if (databaseUrl === undefined) {
  console.error('error: set BENCH_DATABASE_URL (or TEST_DATABASE_URL) to a PostgreSQL database');
  process.exit(2);
}

interface Setup {
  /** Its name in `BENCH_SCALE_SETUPS`. */
  key: string;
  name: string;
  database: 'postgres' | 'sqlite';
  instances: number;
  /** Concurrent clients; `CONCURRENCY` unless a diagnostic setup says otherwise. */
  clients: number;
  /** Run only when named in `BENCH_SCALE_SETUPS`, and never part of the ratios. */
  diagnostic?: boolean;
}

interface Run {
  callsPerSecond: number;
  p50: number;
  p99: number;
  /** The gateways' CPU time (user + system, all instances) per call, in microseconds. */
  cpuPerCall: number;
  /**
   * The same, less what the gateways spend with no call at all (timers, the balancer's health
   * checks, registry re-reads), measured just before: the cost the calls add.
   */
  netCpuPerCall: number;
  /** haproxy's, likewise. */
  proxyCpuPerCall: number;
  /** The gateways' main threads' share of `cpuPerCall` (the rest: V8's and libuv's threads). */
  mainCpuPerCall: number;
  /**
   * How often the gateways' main threads went to sleep (voluntary context switches), per call:
   * each is a wake-up later, which costs far more than the system call.
   */
  sleepsPerCall: number;
}

/** A process's CPU time so far (user + system), in microseconds, from /proc. */
function cpuMicros(pid: number | undefined): number {
  return pid === undefined ? 0 : statMicros(`/proc/${pid}/stat`);
}

/** A process's main thread's CPU time so far, and how often it has gone to sleep. */
function mainThread(pid: number | undefined): { cpu: number; sleeps: number } {
  if (pid === undefined) return { cpu: 0, sleeps: 0 };
  const status = readFileSync(`/proc/${pid}/task/${pid}/status`, 'utf8');
  return {
    cpu: statMicros(`/proc/${pid}/task/${pid}/stat`),
    sleeps: Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0),
  };
}

function statMicros(path: string): number {
  const stat = readFileSync(path, 'utf8');
  // Fields after the command name (which may hold spaces), from field 3 on.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) / TICKS) * 1e6;
}

async function waitFor(what: string, check: () => Promise<boolean>, ms = 60_000) {
  for (let waited = 0; waited < ms; waited += 100) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A fresh schema on the PostgreSQL server, and the URL that uses it. */
async function freshSchema(): Promise<{ url: string; drop: () => Promise<void> }> {
  const schema = `gw_bench_${randomBytes(6).toString('hex')}`;
  const run = async (sql: string) => {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await run(`create schema "${schema}"`);
  const url = new URL(databaseUrl as string);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return { url: url.href, drop: () => run(`drop schema if exists "${schema}" cascade`) };
}

/** The shipped deploy/haproxy.cfg on `port` in front of `backends`, logging nowhere. */
async function haproxyConfig(port: number, backends: number[]): Promise<string> {
  const config = await readFile(join(root, 'deploy/haproxy.cfg'), 'utf8');
  return config
    .replace(/^(\s*bind) :\d+$/m, `$1 127.0.0.1:${port}`)
    .replace(/^\s*log stdout.*$/m, '')
    .replace(/^\s*option httplog$/m, '')
    .replace(
      /(?:^\s*server\s+gateway-\d.*\n)+/m,
      backends.map((backend, i) => `  server gw${i} 127.0.0.1:${backend}\n`).join(''),
    );
}

/** The gateways and the proxy of `setup`, started, with an MCP token; `stop()` ends them. */
async function startSetup(setup: Setup) {
  const dir = await mkdtemp(join(tmpdir(), 'gateway-bench-scale-'));
  const children: ChildProcess[] = [];
  const schema = setup.database === 'postgres' ? await freshSchema() : undefined;
  const stop = async () => {
    for (const child of children) child.kill('SIGKILL');
    await schema?.drop();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const config = join(dir, 'gateway.config.js');
    await writeFile(config, `export default { plugins: [${JSON.stringify(plugin)}] };\n`);
    const proxyPort = await freePort();
    const url = `http://127.0.0.1:${proxyPort}`;
    const serviceSecret = randomBytes(24).toString('hex');
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: dir,
      NODE_ENV: 'production',
      AUTH_SECRET: randomBytes(32).toString('base64'),
      SERVICE_API_SECRET: serviceSecret,
      GATEWAY_CONFIG: config,
      GATEWAY_BASE_URL: url,
      GATEWAY_DATA_DIR: join(dir, 'data'),
      GATEWAY_TRUSTED_PROXIES: '127.0.0.1',
      // The registrations are re-read as shipped (GATEWAY_REGISTRY_SYNC_SECONDS, 5 s): the wait
      // for the tool on every instance below covers it.
      ...(schema === undefined ? {} : { DATABASE_URL: schema.url }),
    };
    const ports: number[] = [];
    for (let i = 0; i < setup.instances; i += 1) {
      const port = await freePort();
      ports.push(port);
      // One after the other: the first migrates the database. The request log goes nowhere.
      const child = spawn(process.execPath, [...NODE_FLAGS, bin], {
        cwd: dir,
        env: { ...env, PORT: String(port) },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      children.push(child);
      await waitFor(
        `instance ${i + 1} of ${setup.name}`,
        async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).ok,
      );
    }
    const haproxyFile = join(dir, 'haproxy.cfg');
    await writeFile(haproxyFile, await haproxyConfig(proxyPort, ports));
    const proxy = spawn(haproxy as string, ['-db', '-f', haproxyFile], {
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    children.push(proxy);
    // Every instance in service behind the proxy (checked on /readyz, rise 2).
    await new Promise((resolve) => setTimeout(resolve, 3000));
    await waitFor('haproxy', async () => (await fetch(`${url}/healthz`)).ok);
    const token = await endpointToken(url, serviceSecret, {
      user: {
        name: 'Bench',
        email: 'bench@example.test',
        password: randomBytes(12).toString('hex'),
      },
      endpointName: 'bench',
      plugin: 'scale',
    });
    // Every instance serves the tool (the others read the registration within a second).
    const direct = new Agent({ keepAlive: false });
    for (const port of ports) {
      const instance = { url: `http://127.0.0.1:${port}`, token };
      const call = await client(instance, direct, false);
      await waitFor(`the tool on port ${port}`, async () => (await call()) >= 0, 30_000);
    }
    const gateways = children.slice(0, setup.instances);
    return {
      url,
      token,
      stop,
      gatewayCpu: () => gateways.reduce((sum, child) => sum + cpuMicros(child.pid), 0),
      proxyCpu: () => cpuMicros(proxy.pid),
      mainThreads: () =>
        gateways
          .map((child) => mainThread(child.pid))
          .reduce((sum, one) => ({ cpu: sum.cpu + one.cpu, sleeps: sum.sleeps + one.sleeps })),
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** One POST to `/mcp`: its status, `Mcp-Session-Id` and text. */
function post(
  target: { url: string; token: string },
  agent: Agent,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; session: string | undefined; text: string }> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const sent = request(
      `${target.url}/mcp`,
      {
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${target.token}`,
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(payload)),
          ...headers,
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            session: response.headers['mcp-session-id'] as string | undefined,
            text,
          }),
        );
      },
    );
    sent.on('error', reject);
    sent.end(payload);
  });
}

/** A client: a 2025 session (opened now) or 2026-07-28 stateless; `call()` makes one call. */
async function client(target: { url: string; token: string }, agent: Agent, session: boolean) {
  let headers: Record<string, string> = { 'mcp-protocol-version': '2026-07-28' };
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'bench-scale', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  if (session) {
    const opened = await post(
      target,
      agent,
      {},
      {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'bench-scale', version: '1.0.0' },
        },
      },
    );
    if (opened.status !== 200 || opened.session === undefined) {
      throw new Error(`initialize answered ${opened.status} ${opened.text.slice(0, 200)}`);
    }
    headers = { 'mcp-session-id': opened.session, 'mcp-protocol-version': '2025-11-25' };
    await post(target, agent, headers, { jsonrpc: '2.0', method: 'notifications/initialized' });
  }
  let id = 0;
  return async () => {
    id += 1;
    const started = performance.now();
    const answer = await post(
      target,
      agent,
      session ? headers : { ...headers, 'mcp-method': 'tools/call', 'mcp-name': TOOL },
      {
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: TOOL, arguments: { text: 'hello' }, ...(session ? {} : { _meta: meta }) },
      },
    );
    if (answer.status !== 200 || !answer.text.includes('"structuredContent"')) {
      throw new Error(`unexpected answer ${answer.status} ${answer.text.slice(0, 300)}`);
    }
    return performance.now() - started;
  };
}

async function load(
  target: Awaited<ReturnType<typeof startSetup>>,
  calls: number,
  clients: number,
): Promise<Run> {
  const agent = new Agent({ keepAlive: true, maxSockets: clients });
  const callers = await Promise.all(
    Array.from({ length: clients }, (_, i) => client(target, agent, i % 2 === 0)),
  );
  // What the gateways spend meanwhile without any call, per second.
  const idleStart = target.gatewayCpu();
  const idleStarted = performance.now();
  await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
  const idlePerSecond =
    (target.gatewayCpu() - idleStart) / ((performance.now() - idleStarted) / 1000);
  const latencies: number[] = [];
  let next = 0;
  const mainBefore = target.mainThreads();
  const cpuBefore = target.gatewayCpu();
  const proxyBefore = target.proxyCpu();
  const started = performance.now();
  await Promise.all(
    callers.map(async (call) => {
      while (next < calls) {
        next += 1;
        latencies.push(await call());
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpuPerCall = (target.gatewayCpu() - cpuBefore) / calls;
  const netCpuPerCall = Math.max(0, cpuPerCall - (idlePerSecond * seconds) / calls);
  const proxyCpuPerCall = (target.proxyCpu() - proxyBefore) / calls;
  const mainAfter = target.mainThreads();
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)] ?? 0;
  return {
    callsPerSecond: calls / seconds,
    p50: at(0.5),
    p99: at(0.99),
    cpuPerCall,
    netCpuPerCall,
    proxyCpuPerCall,
    mainCpuPerCall: (mainAfter.cpu - mainBefore.cpu) / calls,
    sleepsPerCall: (mainAfter.sleeps - mainBefore.sleeps) / calls,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}
const fmt = (n: number, digits = 2) => n.toFixed(digits);

function medians(runs: Run[]): Run {
  const of = (key: keyof Run) => median(runs.map((run) => run[key]));
  return {
    callsPerSecond: of('callsPerSecond'),
    p50: of('p50'),
    p99: of('p99'),
    cpuPerCall: of('cpuPerCall'),
    netCpuPerCall: of('netCpuPerCall'),
    proxyCpuPerCall: of('proxyCpuPerCall'),
    mainCpuPerCall: of('mainCpuPerCall'),
    sleepsPerCall: of('sleepsPerCall'),
  };
}

/** One round's figures, with where the gateways' CPU went and how often their loops slept. */
function roundLine(run: Run): string {
  return (
    `${fmt(run.callsPerSecond, 0)} calls/s, CPU µs/call ${fmt(run.cpuPerCall, 0)} ` +
    `(main threads ${fmt(run.mainCpuPerCall, 0)}, other threads ` +
    `${fmt(run.cpuPerCall - run.mainCpuPerCall, 0)}), main-thread sleeps/call ${fmt(run.sleepsPerCall)}`
  );
}
const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');

const third = Math.max(1, Math.round(CONCURRENCY / 3));
const half = Math.max(1, Math.round(CONCURRENCY / 2));
const setups: Setup[] = [
  {
    key: 'pg1',
    name: 'PostgreSQL, 1 instance',
    database: 'postgres',
    instances: 1,
    clients: CONCURRENCY,
  },
  {
    key: 'pg3',
    name: 'PostgreSQL, 3 instances',
    database: 'postgres',
    instances: 3,
    clients: CONCURRENCY,
  },
  {
    key: 'sqlite1',
    name: 'SQLite, 1 instance',
    database: 'sqlite',
    instances: 1,
    clients: CONCURRENCY,
  },
  // Diagnostics: each of pg3's instances sees about a third of the clients, so pg1-third is one
  // process loaded as each of them is, and pg3-triple three processes each loaded as pg1 is;
  // pg2 and pg1-half are the same pair for two instances (each sees half of the clients).
  {
    key: 'pg1-third',
    name: `PostgreSQL, 1, ${third} clients`,
    database: 'postgres',
    instances: 1,
    clients: third,
    diagnostic: true,
  },
  {
    key: 'pg3-triple',
    name: `PostgreSQL, 3, ${CONCURRENCY * 3} clients`,
    database: 'postgres',
    instances: 3,
    clients: CONCURRENCY * 3,
    diagnostic: true,
  },
  {
    key: 'pg2',
    name: 'PostgreSQL, 2 instances',
    database: 'postgres',
    instances: 2,
    clients: CONCURRENCY,
    diagnostic: true,
  },
  {
    key: 'pg1-half',
    name: `PostgreSQL, 1, ${half} clients`,
    database: 'postgres',
    instances: 1,
    clients: half,
    diagnostic: true,
  },
];
/** `BENCH_SCALE_SETUPS` (e.g. `pg1,pg3`): only these setups run (the ratios need all three). */
const chosen = process.env.BENCH_SCALE_SETUPS?.split(',').map((key) => key.trim());
const unknown = chosen?.filter((key) => !setups.some((setup) => setup.key === key)) ?? [];
if (unknown.length > 0) {
  console.error(
    `error: unknown BENCH_SCALE_SETUPS ${unknown.join(', ')} (${setups.map((setup) => setup.key).join(', ')})`,
  );
  process.exit(2);
}
const results = new Map<string, Run>();
console.log(
  `Scale benchmark: echo tools/call through haproxy (deploy/haproxy.cfg), ${CONCURRENCY} clients ` +
    `(half 2025 sessions, half 2026-07-28 stateless), ${CALLS} calls per round, medians of ${ROUNDS} rounds`,
);
console.log(
  'setup                      calls/s  p50/p99 ms      CPU µs/call gateways (less idle)  CPU µs/call haproxy',
);
const running: { setup: Setup; target: Awaited<ReturnType<typeof startSetup>>; runs: Run[] }[] = [];
try {
  for (const setup of setups) {
    if (chosen === undefined ? setup.diagnostic === true : !chosen.includes(setup.key)) continue;
    const target = await startSetup(setup);
    running.push({ setup, target, runs: [] });
    // Every instance warms up as long as a single one does: each compiles its hot code and fills
    // its caches on its own, which a long-running deployment pays once, not per call.
    await load(target, WARMUP * setup.instances, setup.clients);
  }
  // Rounds alternate between the setups, all started at once, so a change in the machine's load
  // (other work on a shared machine) falls on each setup alike instead of on the one measured then.
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const { setup, target, runs } of running) {
      const run = await load(target, CALLS, setup.clients);
      runs.push(run);
      console.log(`  round ${round + 1} ${setup.key.padEnd(8)} ${roundLine(run)}`);
    }
  }
  for (const { setup, runs } of running) {
    const run = medians(runs);
    results.set(setup.name, run);
    console.log(
      [
        setup.name.padEnd(25),
        fmt(run.callsPerSecond, 0).padStart(8),
        `${fmt(run.p50)}/${fmt(run.p99)}`.padStart(14),
        `${fmt(run.cpuPerCall, 0)} (${fmt(run.netCpuPerCall, 0)})`.padStart(32),
        fmt(run.proxyCpuPerCall, 0).padStart(20),
      ].join('  '),
    );
  }
} finally {
  for (const { target } of running) await target.stop();
}
const [pg1, pg3, sqlite1] = setups.map((setup) => results.get(setup.name));
for (const setup of setups) {
  const run = results.get(setup.name);
  if (setup.diagnostic !== true || run === undefined || pg1 === undefined) continue;
  console.log(
    `CPU per call, ${setup.name} ÷ PostgreSQL, 1 instance: ${fmt(run.cpuPerCall / pg1.cpuPerCall)}`,
  );
}
if (pg1 !== undefined && pg3 !== undefined && sqlite1 !== undefined) {
  const scaleCpu = pg3.cpuPerCall / pg1.cpuPerCall;
  const pgCpu = pg1.cpuPerCall / sqlite1.cpuPerCall;
  console.log(
    `CPU per call less idle: 3 instances ÷ 1 ${fmt(pg3.netCpuPerCall / pg1.netCpuPerCall)}, ` +
      `PostgreSQL ÷ SQLite ${fmt(pg1.netCpuPerCall / sqlite1.netCpuPerCall)}`,
  );
  console.log(
    `throughput 3 instances ÷ 1 (PostgreSQL): ${fmt(pg3.callsPerSecond / pg1.callsPerSecond)}`,
  );
  console.log(
    `throughput PostgreSQL ÷ SQLite (1 instance): ${fmt(pg1.callsPerSecond / sqlite1.callsPerSecond)}`,
  );
  console.log(`${verdict(scaleCpu <= 1.3)} CPU per call 3 instances ÷ 1 <= 1.3: ${fmt(scaleCpu)}`);
  console.log(`${verdict(pgCpu <= 2)} CPU per call PostgreSQL ÷ SQLite <= 2: ${fmt(pgCpu)}`);
}
