/**
 * Where a side's CPU goes at real speed (issue 37, README.md `floor42`): callgrind counts
 * instructions, which miss what an instruction costs (cache and TLB misses, V8's inline-cache
 * misses taken in its runtime, the kernel's share of a system call). For each side
 * (`SPLIT_SIDES`, default `lean-checked,federated`: server.ts's kinds) this samples the side's
 * process with `perf record -e cpu-clock` (`SPLIT_HZ`, default 4,000 a second) over
 * `SPLIT_CALLS` calls (default 8,000) at `SPLIT_CLIENTS` clients (default 1), after
 * `SPLIT_WARMUP` (default 5,000), for `SPLIT_ROUNDS` rounds (default 2, the sides' order mirrored
 * each round), and prints µs a call of the event loop's thread by what ran: the kernel, V8's
 * builtins, V8's runtime, node's own C++, JavaScript by V8 tier (named from the perf map
 * `--perf-basic-prof-only-functions` writes, the last line for an address winning: `frame47`),
 * libc, native addons; the other threads together; and the event loop's top symbols. Sampling
 * slows the side (~1.4 times): compare sides, not runs. Data stays in `SPLIT_OUT` (default
 * `/tmp/cpu-split`). `SPLIT_PROCESS=upstream` samples the bare upstream instead, the one process
 * every side calls, while each side's calls go through it (README.md `stages43`: what the
 * upstream's round trip costs behind each side).
 * `SPLIT_BY=frame` records call stacks (`perf record -g`) and charges each event-loop sample, with
 * the builtins, runtime, libc and kernel below it, to the nearest JavaScript frame on its stack,
 * summed by whose code that frame is (README.md `prom46`).
 *
 * `pnpm exec tsx bench/mcp/cpu-split.ts`, after `pnpm --filter @gateway/sdk --filter
 * @gateway/server build`; needs `perf` (Debian: linux-perf).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { basename } from 'node:path';
import { originOf } from './origins.js';
import { load, type Side, startInFront, startSide } from './sides.js';

const SIDES = (process.env.SPLIT_SIDES ?? 'lean-checked,federated').split(',');
const CLIENTS = Number(process.env.SPLIT_CLIENTS ?? 1);
const CALLS = Number(process.env.SPLIT_CALLS ?? 8000);
const WARMUP = Number(process.env.SPLIT_WARMUP ?? 5000);
const ROUNDS = Number(process.env.SPLIT_ROUNDS ?? 2);
const HZ = Number(process.env.SPLIT_HZ ?? 4000);
const OUT = process.env.SPLIT_OUT ?? '/tmp/cpu-split';
/** Which process is sampled: the side's (`side`, the default) or the bare upstream's (`upstream`). */
const PROCESS = process.env.SPLIT_PROCESS ?? 'side';
if (PROCESS !== 'side' && PROCESS !== 'upstream') {
  throw new Error(`SPLIT_PROCESS: "${PROCESS}" is neither side nor upstream.`);
}
const TOP = 12;
/** The flag that makes a process write the perf map {@link perfMapOf} reads. */
const PERF_MAP = ['--perf-basic-prof-only-functions'];
/** How samples are summed: by what ran (`kind`, the default) or by nearest JavaScript frame. */
const BY = process.env.SPLIT_BY ?? 'kind';
if (BY !== 'kind' && BY !== 'frame')
  throw new Error(`SPLIT_BY: "${BY}" is neither kind nor frame.`);

/** V8's tiers by the mark its perf map puts before a JavaScript function's name. */
const TIERS: Record<string, string> = {
  '*': 'JS, TurboFan',
  '+': 'JS, Maglev',
  '^': 'JS, Sparkplug',
  '~': 'JS, interpreted',
};

/** What ran, from perf's DSO and symbol: a JIT symbol's tier is its name's mark (V8's perf map). */
function kindOf(thread: string, dso: string, symbol: string): string {
  if (thread !== 'MainThread') return 'other threads';
  if (dso === '[kernel.kallsyms]') return 'kernel';
  if (dso.startsWith('[JIT]')) {
    const mark = /JS:([~^+*])/.exec(symbol)?.[1] ?? '';
    return TIERS[mark] ?? 'JIT, other (stubs, wasm)';
  }
  if (dso === 'node') {
    if (symbol.startsWith('Builtins_')) return "V8's builtins (inline caches, calls, promises)";
    if (/^v8::|^cppgc::|^heap::/.test(symbol)) return "V8's runtime (C++: ICs' misses, GC, JSON)";
    return "node's C++, libuv, llhttp";
  }
  if (dso.startsWith('libc')) return 'libc';
  if (dso.endsWith('.node')) return 'native addons (better-sqlite3)';
  return 'other';
}

/**
 * A resolver from an address in V8's code space to the function V8 last put there, by the perf
 * map `pid` wrote (`/tmp/perf-<pid>.map`: "start size name" in hex, one line a function, appended
 * as code is made). V8 reuses the space of collected code, so one address can have several lines;
 * perf takes an older one and names a function that no longer ran there (README.md `frame47`: up
 * to 150 µs a call of Node's socket writes charged to the relay's own `deeperThan`). The last line
 * wins here: it is the code that was there when the run ended, which a steady run ran all along.
 * User-space addresses are below 2^47, so numbers hold them exactly.
 */
function perfMapOf(pid: number): (ip: number) => string | undefined {
  const file = `/tmp/perf-${pid}.map`;
  if (!existsSync(file)) {
    throw new Error(`cpu-split.ts: process ${pid} wrote no ${file}: start it with ${PERF_MAP[0]}.`);
  }
  const entries = readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((line) => {
      const match = /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(line);
      if (match === null) return [];
      const start = Number.parseInt(match[1] ?? '', 16);
      return [{ start, end: start + Number.parseInt(match[2] ?? '', 16), name: match[3] ?? '' }];
    });
  const known = new Map<number, string | undefined>();
  return (ip) => {
    if (!known.has(ip)) {
      known.set(ip, entries.findLast(({ start, end }) => start <= ip && ip < end)?.name);
    }
    return known.get(ip);
  };
}

/** A frame of a sample: its DSO's file name (`[JIT]` for V8's code) and its symbol. */
interface Frame {
  dso: string;
  symbol: string;
}

/** A sample: the thread it caught and its frames, innermost first. */
interface Sample {
  thread: string;
  frames: Frame[];
}

/**
 * The samples of `file`, recorded from process `pid`: each one's thread and frames, innermost
 * first (one frame unless recorded with call stacks), V8's code named by {@link perfMapOf}.
 */
function samplesOf(file: string, pid: number): Sample[] {
  const script = spawnSync('perf', ['script', '-i', file, '-F', 'comm,ip,sym,dso'], {
    encoding: 'utf8',
    maxBuffer: 1024 * 1024 * 1024,
  }).stdout;
  const nameAt = perfMapOf(pid);
  const frameOf = (ip: string, symbol: string, path: string): Frame =>
    /^\/tmp\/perf-\d+\.map$/.test(path)
      ? { dso: '[JIT]', symbol: nameAt(Number.parseInt(ip, 16)) ?? symbol }
      : { dso: basename(path), symbol };
  if (BY === 'kind') {
    // "      MainThread      7f3a5c1e2b40 Builtins_KeyedStoreIC (/…/bin/node)"
    return script.split('\n').flatMap((line) => {
      const match = /^\s*(.*?)\s+([0-9a-f]+)\s+(.*)\s+\((.*)\)$/.exec(line);
      if (match === null) return [];
      const [, thread = '', ip = '', symbol = '', path = ''] = match;
      return [{ thread, frames: [frameOf(ip, symbol, path)] }];
    });
  }
  // "MainThread \n\t7f3a5c1e2b40 JS:+'writeAnswer file:///…/index.js:2479:27 (/tmp/perf-8237.map)"
  return script.split('\n\n').map((sample) => {
    const [thread = '', ...lines] = sample.split('\n').filter((line) => line.trim() !== '');
    const frames = lines.flatMap((line) => {
      const match = /^\s*([0-9a-f]+)\s+(.*)\s+\((.*)\)$/.exec(line);
      return match === null ? [] : [frameOf(match[1] ?? '', match[2] ?? '', match[3] ?? '')];
    });
    return { thread: thread.trim(), frames };
  });
}

type Split = { kinds: Map<string, number>; top: [string, number][] };

/**
 * The samples as µs a call by the kind `chargeOf` gives each (none: not counted), and the top
 * names it gives.
 */
function summed(
  samples: Sample[],
  chargeOf: (sample: Sample) => { kind: string; name: string | undefined } | undefined,
): Split {
  const usPerSample = 1_000_000 / HZ / CALLS;
  const kinds = new Map<string, number>();
  const names = new Map<string, number>();
  for (const sample of samples) {
    const charge = chargeOf(sample);
    if (charge === undefined) continue;
    kinds.set(charge.kind, (kinds.get(charge.kind) ?? 0) + usPerSample);
    if (charge.name !== undefined) {
      names.set(charge.name, (names.get(charge.name) ?? 0) + usPerSample);
    }
  }
  const top = [...names].sort((a, b) => b[1] - a[1]).slice(0, TOP);
  return { kinds, top };
}

/** The samples as µs a call by kind of what ran, and the event loop's top symbols. */
function split(samples: Sample[]): Split {
  return summed(samples, ({ thread, frames }) => {
    const { dso = '', symbol = '' } = frames[0] ?? {};
    return {
      kind: kindOf(thread, dso, symbol),
      name: thread === 'MainThread' ? symbol : undefined,
    };
  });
}

/**
 * The event loop's samples (recorded with call stacks) as µs a call by whose code the nearest
 * JavaScript frame is (`none: native only` where no JavaScript is on the stack), and the top
 * JavaScript functions so charged.
 */
function splitByFrame(samples: Sample[]): Split {
  return summed(samples, ({ thread, frames }) => {
    if (thread !== 'MainThread') return undefined;
    const js = frames
      .find(({ dso, symbol }) => dso === '[JIT]' && symbol.startsWith('JS:'))
      ?.symbol.replace(/^JS:[~^+*]?'?/, '');
    if (js === undefined)
      return { kind: 'none: native only (wake-ups, llhttp, malloc, GC)', name: undefined };
    return { kind: originOf(js.split(' ').at(-1) ?? ''), name: js };
  });
}

/** Samples `pid` while `side` makes its calls (the side's own process, or the upstream's). */
async function sampled(side: Side, pid: number, agent: Agent, round: number): Promise<void> {
  const file = `${OUT}-${side.name}-${round}.data`;
  const perf = spawn(
    'perf',
    [
      'record',
      '-q',
      ...(BY === 'frame' ? ['-g'] : []),
      '-e',
      'cpu-clock',
      '-F',
      String(HZ),
      '-p',
      String(pid),
      '-o',
      file,
    ],
    { stdio: 'ignore' },
  );
  await new Promise((resolve) => setTimeout(resolve, 500));
  const started = performance.now();
  await load(side, agent, CLIENTS, CALLS);
  const us = ((performance.now() - started) * 1000) / CALLS;
  perf.kill('SIGINT');
  await new Promise((resolve) => perf.once('exit', resolve));
  const samples = samplesOf(file, pid);
  const { kinds, top } = BY === 'frame' ? splitByFrame(samples) : split(samples);
  const total = [...kinds.values()].reduce((sum, value) => sum + value, 0);
  const whose = PROCESS === 'upstream' ? `the upstream behind ${side.name}` : side.name;
  console.log(
    `${whose}, round ${round}: ${us.toFixed(0)} µs a call sampled, CPU ${total.toFixed(0)} µs a call:`,
  );
  for (const [kind, value] of [...kinds].sort((a, b) => b[1] - a[1])) {
    console.log(`  ${value.toFixed(1).padStart(7)}  ${kind}`);
  }
  console.log(
    BY === 'frame' ? '  event loop, top JavaScript frames:' : '  event loop, top symbols:',
  );
  for (const [symbol, value] of top) console.log(`  ${value.toFixed(1).padStart(7)}  ${symbol}`);
}

if (spawnSync('perf', ['--version']).error !== undefined) {
  console.error('cpu-split.ts needs perf: install linux-perf (Debian) or linux-tools-$(uname -r).');
  process.exit(1);
}
const bare = await startSide('bare', undefined, PROCESS === 'upstream' ? PERF_MAP : []);
const sides: Side[] = [];
try {
  for (const name of SIDES) {
    sides.push(await startInFront(name, bare, PROCESS === 'side' ? PERF_MAP : []));
  }
  const agents = new Map(sides.map((side) => [side, new Agent({ keepAlive: true })]));
  for (const side of sides) await load(side, agents.get(side) as Agent, CLIENTS, WARMUP);
  for (let round = 1; round <= ROUNDS; round += 1) {
    for (const side of round % 2 === 1 ? sides : [...sides].reverse()) {
      const pid = PROCESS === 'upstream' ? bare.pid : side.pid;
      await sampled(side, pid, agents.get(side) as Agent, round);
    }
  }
  for (const agent of agents.values()) agent.destroy();
} finally {
  for (const side of sides) side.child.kill();
  bare.child.kill();
}
