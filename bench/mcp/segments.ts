/**
 * Where a one-client call's wall time goes at real speed (issue 37, README.md `crit41`): starts
 * the bare upstream and the sides (`SEGMENTS_SIDES`, default `relay,federated`; `gateway`, the
 * plugin call, on request) as index.ts does, warms each up (`SEGMENTS_WARMUP` calls, default
 * 5,000), then for `SEGMENTS_ROUNDS` rounds (default 3), the sides' order mirrored each round,
 * makes `SEGMENTS_CALLS` sequential calls a side (default 2,000, one kept-alive connection) while
 * `perf record` traces the syscalls of the client (this process), the middle and the bare
 * upstream. segments-trace.ts cuts each call into its segments (each process's work between its
 * wake-up and its write, and each wake-up across processes); this prints per side their medians
 * and p90 (µs, pooled over rounds), the middle's busy time after each of its writes until its
 * loop sleeps, which core each process woke on, and each round's calls per second.
 *
 * perf's tracing costs a few µs a syscall and keeps the vCPUs from idling, so its absolute figures
 * are not real speed: compare sides within one run. `SEGMENTS_TRACE=0` measures the same rounds
 * untraced (calls per second and the ratio only). `SEGMENTS_AWAKE=1` runs a keep-awake load
 * while measuring: one spinning `sh` pinned to each core under `chrt --idle` (SCHED_IDLE: it
 * runs only when nothing else wants the core, so it takes no time from either side, but the vCPU
 * never halts and a wake-up never waits for an idle vCPU to be scheduled again).
 * Traces stay in `SEGMENTS_OUT` (default `/tmp/segments`, `-<side>-<round>.data`). Timed figures
 * on a shared machine are noise; run it through `/work/wt/bench.sh` when they matter.
 *
 * `pnpm exec tsx bench/mcp/segments.ts`, after `pnpm --filter @gateway/sdk --filter @gateway/server build`;
 * needs `perf` (linux-perf) allowed to trace syscalls (root, or `kernel.perf_event_paranoid` -1).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { availableParallelism } from 'node:os';
import { postCall } from './modern-call.js';
import { cutCalls, parseTrace, type Roles, summarise, table } from './segments-trace.js';
import { type Side, startInFront, startSide } from './sides.js';

const SIDES = (process.env.SEGMENTS_SIDES ?? 'relay,federated').split(',');
const CALLS = Number(process.env.SEGMENTS_CALLS ?? 2000);
const WARMUP = Number(process.env.SEGMENTS_WARMUP ?? 5000);
const ROUNDS = Number(process.env.SEGMENTS_ROUNDS ?? 3);
const TRACE = process.env.SEGMENTS_TRACE !== '0';
const AWAKE = process.env.SEGMENTS_AWAKE === '1';
const OUT = process.env.SEGMENTS_OUT ?? '/tmp/segments';
const EVENTS = ['read', 'write', 'writev']
  .map((call) => `syscalls:sys_enter_${call}`)
  .concat('syscalls:sys_enter_epoll_pwait', 'syscalls:sys_exit_epoll_pwait');

/** Stops with one line saying what is missing, when perf is absent or may not trace syscalls. */
function checkPerf(): void {
  const probe = `${OUT}-probe.data`;
  const run = spawnSync('perf', ['record', '-q', '-o', probe, '-e', EVENTS[1] as string, 'true'], {
    encoding: 'utf8',
  });
  rmSync(probe, { force: true });
  if (run.error !== undefined) {
    console.error(
      'segments.ts needs perf: install linux-perf (Debian) or linux-tools-$(uname -r) (Ubuntu).',
    );
    process.exit(1);
  }
  if (run.status !== 0) {
    // perf's first line can be only "event syntax error"; the reason is further down.
    const lines = run.stderr.split('\n').filter((line) => line.trim() !== '');
    const why =
      lines.find((line) => /access|permission|denied|not (found|supported)/i.test(line)) ??
      lines[0] ??
      `exit ${run.status}`;
    console.error(
      `segments.ts: perf cannot trace syscalls (${why.trim()}): run as root, or set kernel.perf_event_paranoid=-1 with tracefs mounted.`,
    );
    process.exit(1);
  }
}

async function calls(side: Side, agent: Agent, count: number, from: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < count; i++) await postCall(side.url, agent, side.tool, side.token, from + i);
  return performance.now() - started;
}

/** A process's TCP sockets by descriptor: local and remote port (/proc/net/tcp{,6}). */
function sockets(pid: number): Map<number, { local: number; remote: number }> {
  const byInode = new Map<string, { local: number; remote: number }>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const row of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const columns = row.trim().split(/\s+/);
      const port = (address: string | undefined) =>
        Number.parseInt(address?.split(':')[1] ?? '', 16);
      if (columns[9] !== undefined) {
        byInode.set(columns[9], { local: port(columns[1]), remote: port(columns[2]) });
      }
    }
  }
  const found = new Map<number, { local: number; remote: number }>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
      const ports = inode === undefined ? undefined : byInode.get(inode);
      if (ports !== undefined) found.set(Number(fd), ports);
    } catch {
      // Closed between the listing and the read.
    }
  }
  return found;
}

function fds(pid: number, test: (ports: { local: number; remote: number }) => boolean) {
  return new Set([...sockets(pid)].filter(([, ports]) => test(ports)).map(([fd]) => fd));
}

/** Which descriptors carry the calls in each process, read while the connections are open. */
function roles(side: Side, bare: Side): Roles {
  const port = Number(side.url.port);
  const barePort = Number(bare.url.port);
  const hop = side.name !== 'gateway';
  return {
    client: { pid: process.pid, sockets: fds(process.pid, (p) => p.remote === port) },
    middle: {
      pid: side.pid,
      client: fds(side.pid, (p) => p.local === port && p.remote !== 0),
      ...(hop ? { upstream: fds(side.pid, (p) => p.remote === barePort) } : {}),
    },
    ...(hop
      ? {
          bare: {
            pid: bare.pid,
            sockets: fds(bare.pid, (p) => p.local === barePort && p.remote !== 0),
          },
        }
      : {}),
  };
}

async function traced(side: Side, bare: Side, agent: Agent, round: number) {
  const file = `${OUT}-${side.name}-${round}.data`;
  const pids = [process.pid, side.pid, ...(side.name === 'gateway' ? [] : [bare.pid])];
  const perf = spawn(
    'perf',
    ['record', '-q', '-o', file, '-p', pids.join(','), '-e', EVENTS.join(',')],
    {
      stdio: 'ignore',
    },
  );
  // perf attaches to every thread before the first call.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const ms = await calls(side, agent, CALLS, 1_000_000 * (round + 1));
  // Before the connections can idle out (keep-alive timeouts of a few seconds) and be replaced.
  const found = roles(side, bare);
  perf.kill('SIGINT');
  await new Promise((resolve) => perf.once('exit', resolve));
  const script = spawnSync(
    'perf',
    ['script', '-F', 'comm,pid,tid,cpu,time,event,trace', '-i', file],
    { encoding: 'utf8', maxBuffer: 1 << 30 },
  );
  const cut = cutCalls(parseTrace(script.stdout), found);
  if (cut.length < CALLS * 0.9) {
    // A connection replaced mid-round, or perf lost events: say so rather than pool a few calls.
    const named = JSON.stringify(found, (_, value) => (value instanceof Set ? [...value] : value));
    console.error(
      `${side.name} round ${round + 1}: only ${cut.length} calls cut (sockets ${named})`,
    );
  }
  return { ms, calls: cut };
}

/** One spinning shell a core under SCHED_IDLE: the cores never idle, the sides lose no time. */
function keepAwake(): ChildProcess[] {
  return Array.from({ length: availableParallelism() }, (_, core) =>
    spawn(
      'chrt',
      ['--idle', '0', 'taskset', '-c', String(core), 'sh', '-c', 'while :; do :; done'],
      {
        stdio: 'ignore',
      },
    ),
  );
}

if (TRACE) checkPerf();
const children: ChildProcess[] = [];
// A failed call throws out of the run: the servers and spinners must not outlive it.
process.on('exit', () => {
  for (const child of children) child.kill();
});
const bare = await startSide('bare');
children.push(bare.child);
const sides: Side[] = [];
for (const name of SIDES) {
  sides.push(await startInFront(name, bare));
  children.push((sides.at(-1) as Side).child);
}
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
for (const side of sides) await calls(side, agent, WARMUP, 1);
const awake = AWAKE ? keepAwake() : [];
children.push(...awake);
const cut = new Map(sides.map((side) => [side.name, [] as ReturnType<typeof cutCalls>]));
console.log(
  `${CALLS} sequential calls a side and round, ${TRACE ? 'perf-traced' : 'untraced'}${AWAKE ? ', keep-awake load on every core' : ''}`,
);
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? sides : [...sides].reverse();
  const rates = new Map<string, number>();
  for (const side of order) {
    if (TRACE) {
      const { ms, calls: found } = await traced(side, bare, agent, round);
      cut.get(side.name)?.push(...found);
      rates.set(side.name, (CALLS * 1000) / ms);
    } else {
      rates.set(
        side.name,
        (CALLS * 1000) / (await calls(side, agent, CALLS, 1_000_000 * (round + 1))),
      );
    }
  }
  const first = rates.get(sides[0]?.name ?? '') ?? Number.NaN;
  const line = sides.map((side) => `${side.name} ${(rates.get(side.name) ?? 0).toFixed(0)}/s`);
  const ratios = sides
    .slice(1)
    .map(
      (side) =>
        `${side.name}/${sides[0]?.name} ${((rates.get(side.name) ?? 0) / first).toFixed(2)}`,
    );
  console.log(`round ${round + 1}: ${[...line, ...ratios].join(', ')}`);
}
for (const spinner of awake) spinner.kill();
if (TRACE) {
  console.log('');
  for (const line of table(sides.map((side) => [side.name, summarise(cut.get(side.name) ?? [])]))) {
    console.log(line);
  }
}
agent.destroy();
for (const side of [...sides, bare]) side.child.kill();
