/**
 * What a call costs in the kernel (issue 37, README.md `sys40`): for each side of the MCP bench
 * (`relay`, `federated`, `gateway` for the plugin call; `KERNEL_SIDES`) at each concurrency
 * (`KERNEL_CLIENTS`, default `1,16`), after `KERNEL_WARMUP` calls (default 3,000):
 * - CPU a call by thread (user and system, from `/proc/<pid>/task/<tid>/stat`, in 10 ms ticks)
 *   and context switches a call (voluntary and involuntary, `/proc/<pid>/task/<tid>/status`)
 *   over `KERNEL_CALLS` calls (default 3,000), not traced;
 * - then system calls a call by thread and kind over as many calls again, from a full
 *   `strace -f` of the process (`KERNEL_STRACE=0` skips it): reads and writes are told apart by
 *   what the descriptor is (`client` and `upstream` sockets, `records journal` for the
 *   execution records' segments, another file by name, `null` for /dev/null), `futex` and `epoll_ctl` by operation. strace slows the process several times:
 *   its counts are read, never its time.
 * The same window's CPU is read for the other processes of a call too (`KERNEL_ALL=1`): the load
 * generator (this process, index.ts's client: one kept-alive agent, a call in flight per client)
 * and the bare upstream, with the machine's time by kind from `/proc/stat` (idle, and `nice`: the
 * other sessions' reniced work), and each process's calls per wake-up of its event loop (calls
 * over `MainThread`'s voluntary switches: how many answers one `epoll_pwait` sleep gathers).
 * The sides are server.ts's, started as index.ts starts them (stdout to /dev/null). Timed
 * figures on a shared machine are noise; run it through `/work/wt/bench.sh` when they matter.
 * Traces stay in `KERNEL_OUT` (default `/tmp/kernel-<side>-<clients>.strace`).
 *
 * `pnpm exec tsx bench/mcp/kernel.ts`, after `pnpm --filter @gateway/sdk --filter @gateway/server build`.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { Agent } from 'node:http';
import { basename, dirname } from 'node:path';
import { load, type Side, startInFront, startSide } from './sides.js';

const CALLS = Number(process.env.KERNEL_CALLS ?? 3000);
const WARMUP = Number(process.env.KERNEL_WARMUP ?? 3000);
const SIDES = (process.env.KERNEL_SIDES ?? 'relay,federated,gateway').split(',');
const CLIENTS = (process.env.KERNEL_CLIENTS ?? '1,16').split(',').map(Number);
const STRACE = process.env.KERNEL_STRACE !== '0';
const OUT = process.env.KERNEL_OUT ?? '/tmp/kernel';
const ALL = process.env.KERNEL_ALL === '1';
/** Linux's clock ticks (`USER_HZ`): /proc's CPU times count them. */
const TICK_US = 10_000;

/** user ticks, system ticks, voluntary and involuntary context switches. */
type Counts = [number, number, number, number];

/** Each thread's counts so far, by thread id, with its name. */
function threads(pid: number): Map<string, { name: string; counts: Counts }> {
  const found = new Map<string, { name: string; counts: Counts }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const nameEnd = stat.lastIndexOf(')');
      const fields = stat.slice(nameEnd + 2).split(' ');
      const status = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
      const switches = (kind: string) =>
        Number(new RegExp(`^${kind}_ctxt_switches:\\s+(\\d+)$`, 'm').exec(status)?.[1] ?? 0);
      found.set(tid, {
        name: stat.slice(stat.indexOf('(') + 1, nameEnd),
        counts: [
          Number(fields[11]),
          Number(fields[12]),
          switches('voluntary'),
          switches('nonvoluntary'),
        ],
      });
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return found;
}

function cpuLines(
  before: ReturnType<typeof threads>,
  after: ReturnType<typeof threads>,
  calls: number,
): string[] {
  const byName = new Map<string, Counts>();
  const all: Counts = [0, 0, 0, 0];
  for (const [tid, { name, counts }] of after) {
    const earlier = before.get(tid)?.counts ?? [0, 0, 0, 0];
    const sum = byName.get(name) ?? [0, 0, 0, 0];
    for (let i = 0; i < 4; i++) {
      const delta = (counts[i] as number) - (earlier[i] as number);
      sum[i] = (sum[i] as number) + delta;
      all[i] = (all[i] as number) + delta;
    }
    byName.set(name, sum);
  }
  const line = (name: string, [user, system, voluntary, involuntary]: Counts) =>
    `  ${name.padEnd(18)} user ${((user * TICK_US) / calls).toFixed(1).padStart(6)} µs, system ${((system * TICK_US) / calls).toFixed(1).padStart(5)} µs, switches ${(voluntary / calls).toFixed(3)} voluntary, ${(involuntary / calls).toFixed(3)} involuntary`;
  return [
    ...[...byName]
      .filter(([, counts]) => counts.some((count) => count !== 0))
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, counts]) => line(name, counts)),
    line('all threads', all),
  ];
}

/** What each of the process's descriptors is: `client`, `upstream`, a file's name, or its kind. */
function descriptors(side: Side): Map<string, string> {
  const socketPorts = new Map<string, number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const row of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const columns = row.trim().split(/\s+/);
      const port = columns[1]?.split(':')[1];
      if (columns[9] !== undefined && port !== undefined) {
        socketPorts.set(columns[9], Number.parseInt(port, 16));
      }
    }
  }
  const kinds = new Map<string, string>();
  for (const fd of readdirSync(`/proc/${side.pid}/fd`)) {
    let target: string;
    try {
      target = readlinkSync(`/proc/${side.pid}/fd/${fd}`);
    } catch {
      continue;
    }
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    if (inode !== undefined) {
      kinds.set(fd, socketPorts.get(inode) === Number(side.url.port) ? 'client' : 'upstream');
    } else if (target === '/dev/null') kinds.set(fd, 'null');
    else if (dirname(target).endsWith('-executions')) kinds.set(fd, 'records journal');
    else if (target.startsWith('/')) kinds.set(fd, basename(target));
    else kinds.set(fd, target.replace(/:.*$/, ''));
  }
  return kinds;
}

/** The machine's time so far by kind (`/proc/stat`'s `cpu` line, in ticks). */
function machine(): Record<string, number> {
  const kinds = ['user', 'nice', 'system', 'idle', 'iowait', 'irq', 'softirq', 'steal'];
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]?.trim().split(/\s+/) ?? [];
  return Object.fromEntries(kinds.map((kind, i) => [kind, Number(fields[i + 1] ?? 0)]));
}

/** The machine's time over a window by kind, in µs a call and in cores busy. */
function machineLines(
  before: Record<string, number>,
  after: Record<string, number>,
  calls: number,
  seconds: number,
): string[] {
  const parts = Object.keys(after).map((kind) => {
    const ticks = (after[kind] ?? 0) - (before[kind] ?? 0);
    return `${kind} ${((ticks * TICK_US) / calls).toFixed(0)} µs (${((ticks * TICK_US) / 1e6 / seconds).toFixed(2)} cores)`;
  });
  return [`  machine (/proc/stat, a call): ${parts.join(', ')}`];
}

/** Calls per wake-up of a process's event loop: calls over `MainThread`'s voluntary switches. */
function wakeLine(
  before: ReturnType<typeof threads>,
  after: ReturnType<typeof threads>,
  calls: number,
  seconds: number,
): string {
  let switches = 0;
  let ticks = 0;
  for (const [tid, { name, counts }] of after) {
    const earlier = before.get(tid)?.counts ?? [0, 0, 0, 0];
    ticks += counts[0] + counts[1] - earlier[0] - earlier[1];
    if (name === 'MainThread') switches += counts[2] - earlier[2];
  }
  return `  calls per event-loop sleep ${(calls / Math.max(switches, 1)).toFixed(2)}; process busy ${((ticks * TICK_US) / 1e6 / seconds).toFixed(2)} cores`;
}

const DESCRIBED_BY_FD =
  /^(read|write|writev|readv|pread64|pwrite64|close|fstat|ftruncate|fcntl|fdatasync|fsync)$/;

/** System calls a call by thread and kind, from a full `strace -f` of `calls` calls. */
async function traced(side: Side, agent: Agent, clients: number, calls: number) {
  const file = `${OUT}-${side.name}-${clients}.strace`;
  const strace = spawn('strace', ['-f', '-qq', '-s', '32', '-o', file, '-p', String(side.pid)], {
    stdio: 'ignore',
  });
  // strace attaches to every thread before the first call.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  await load(side, agent, clients, calls);
  strace.kill('SIGINT');
  await new Promise((resolve) => strace.once('exit', resolve));
  const names = new Map([...threads(side.pid)].map(([tid, { name }]) => [tid, name]));
  const kinds = descriptors(side);
  const counts = new Map<string, number>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const match = /^(\d+)\s+(\w+)\((\w*)([^)]*)/.exec(line);
    if (match === null) continue;
    const [, tid = '', name = '', first = '', rest = ''] = match;
    let kind = name;
    if (DESCRIBED_BY_FD.test(name)) kind += `(${kinds.get(first) ?? 'closed since'})`;
    else if (name === 'futex') kind += `(${/FUTEX_\w+/.exec(rest)?.[0]})`;
    else if (name === 'epoll_ctl') kind += `(${/EPOLL_CTL_\w+/.exec(rest)?.[0]})`;
    const key = `${(names.get(tid) ?? tid).padEnd(16)} ${kind}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts]
    .filter(([, count]) => count / calls >= 0.005)
    .sort((a, b) => b[1] - a[1])
    .map(([key, count]) => `  ${key.padEnd(50)} ${(count / calls).toFixed(3)}`);
}

const bare = await startSide('bare');
for (const name of SIDES) {
  const side = await startInFront(name, bare);
  for (const clients of CLIENTS) {
    const agent = new Agent({ keepAlive: true, maxSockets: clients });
    await load(side, agent, clients, WARMUP);
    const pids: [string, number][] = ALL
      ? [
          [name, side.pid],
          ['client', process.pid],
          ['bare upstream', bare.pid],
        ]
      : [[name, side.pid]];
    const before = pids.map(([, pid]) => threads(pid));
    const machineBefore = machine();
    const started = performance.now();
    await load(side, agent, clients, CALLS);
    const seconds = (performance.now() - started) / 1000;
    const machineAfter = machine();
    const after = pids.map(([, pid]) => threads(pid));
    console.log(`${name} at ${clients} client(s): ${(CALLS / seconds).toFixed(0)} calls/s`);
    for (const [i, [label]] of pids.entries()) {
      const [earlier, later] = [before[i] ?? new Map(), after[i] ?? new Map()];
      if (ALL) console.log(` ${label}:`);
      for (const line of cpuLines(earlier, later, CALLS)) console.log(line);
      if (ALL) console.log(wakeLine(earlier, later, CALLS, seconds));
    }
    if (ALL)
      for (const line of machineLines(machineBefore, machineAfter, CALLS, seconds))
        console.log(line);
    if (STRACE) {
      console.log(`  system calls a call (strace -f, ${CALLS} calls), by thread:`);
      for (const line of await traced(side, agent, clients, CALLS)) console.log(line);
    }
    agent.destroy();
  }
  side.child.kill();
}
bare.child.kill();
