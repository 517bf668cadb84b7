/**
 * Server start-up benchmark (issue 17 item 5): the wall time from spawning `gateway-server` (the
 * shipped bin, `packages/server/bin/gateway-server.cjs`, which checks Node's version and loads the
 * built `dist/bin.js`) to its first answer (`GET /healthz` 200), on a SQLite
 * database already migrated, as a ratio to `node -e 0` measured in the same round, so machine
 * load and Node's own start-up cancel out. Target: the median ratio is at most 4 (issue 37; 8 in
 * issue 17). Also printed, steadier on a loaded machine: the CPU time (all threads) the server
 * had used when its first answer came, against the CPU time `node -e 0` reads of itself.
 *
 * Run from the repository root: `pnpm bench startup` (builds the server first), or
 * `node bench/startup/index.mjs [--runs 15] [--bin <another build's bin/gateway-server.cjs or dist/bin.js>] [--node-flags '<flags>']` after
 * `pnpm --filter @gateway/server build`; `--instructions` also counts the instructions of a start
 * and of `node -e 0` with valgrind, a figure the machine's load does not move. See README.md.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const TARGET_RATIO = 4;
const binAt = process.argv.indexOf('--bin');
const bin =
  binAt === -1
    ? fileURLToPath(new URL('../../packages/server/bin/gateway-server.cjs', import.meta.url))
    : resolve(process.argv[binAt + 1] ?? '');
// `--node-flags '--min-semi-space-size=16'`: flags for the server's `node` (not the baseline's),
// as the Docker image and the systemd unit give it.
const flagsAt = process.argv.indexOf('--node-flags');
const NODE_FLAGS =
  flagsAt === -1 ? [] : (process.argv[flagsAt + 1] ?? '').split(' ').filter(Boolean);
const runsAt = process.argv.indexOf('--runs');
const RUNS = runsAt === -1 ? 15 : Number(process.argv[runsAt + 1]);
if (!Number.isInteger(RUNS) || RUNS < 1) {
  console.error('error: --runs takes a whole number of runs, e.g. --runs 15');
  process.exit(2);
}
if (!existsSync(bin) || (binAt === -1 && !existsSync(join(dirname(bin), '../dist/bin.js')))) {
  console.error(
    binAt === -1
      ? 'error: packages/server/dist/bin.js is missing; run `pnpm --filter @gateway/server build` first'
      : `error: --bin ${process.argv[binAt + 1] ?? ''} does not exist; give the path of a build's bin/gateway-server.cjs or dist/bin.js`,
  );
  process.exit(1);
}

const dataDir = mkdtempSync(join(tmpdir(), 'gateway-startup-'));
// The server's environment, and `node -e 0`'s too: an inherited setting Node acts on at start
// (NODE_EXTRA_CA_CERTS reads a CA bundle: 30 to 70 ms here) would slow the baseline alone.
const env = {
  PATH: process.env.PATH ?? '',
  HOME: dataDir,
  AUTH_SECRET: 'startup-benchmark-auth-secret-0123456789',
  PORT: '0',
  GATEWAY_DATA_DIR: dataDir,
};

function nodeBaseline() {
  const started = process.hrtime.bigint();
  spawnSync(process.execPath, ['-e', '0'], { env });
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/** Milliseconds of CPU `node -e 0` has used when its script runs (it cannot be read after exit). */
function nodeCpu() {
  const { stdout } = spawnSync(
    process.execPath,
    [
      '-e',
      'const u = process.cpuUsage(); process.stdout.write(String((u.user + u.system) / 1000))',
    ],
    { env },
  );
  return Number(String(stdout));
}

/** Milliseconds of CPU all of `pid`'s threads have run (Linux; NaN elsewhere). */
function cpuOf(pid) {
  try {
    let ns = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    }
    return ns / 1e6;
  } catch {
    return Number.NaN;
  }
}

/**
 * Milliseconds from spawn to the first 200 from /healthz, the CPU the server used by then, and its
 * stderr once it stopped. `wrapper` is a command the server runs under (valgrind, for
 * `--instructions`).
 */
function firstAnswer(wrapper = []) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const [command, ...args] = [...wrapper, process.execPath, ...NODE_FLAGS, bin];
    const child = spawn(command, args, {
      cwd: dataDir,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', async (chunk) => {
      stderr += chunk;
      const url = /Gateway listening on (http:\/\/\S+)/.exec(stderr)?.[1];
      if (url === undefined || child.answered) return;
      child.answered = true;
      const response = await fetch(`${url}/healthz`);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const cpu = cpuOf(child.pid);
      child.kill('SIGTERM');
      child.once('exit', () =>
        response.status === 200
          ? resolve({ ms, cpu, stderr })
          : reject(new Error(`healthz ${response.status}`)),
      );
    });
    child.once('exit', (code) => {
      if (!child.answered) reject(new Error(`gateway-server exited ${code}: ${stderr}`));
    });
  });
}

const CACHEGRIND = [
  'valgrind',
  '--tool=cachegrind',
  '--cache-sim=no',
  '--cachegrind-out-file=/dev/null',
];

/** The instructions valgrind counted in a run, from its summary line (`I refs: 913,245,113`). */
function instructions(stderr) {
  const counted = /I\s+refs:\s+([\d,]+)/.exec(stderr)?.[1];
  if (counted === undefined) throw new Error(`valgrind printed no instruction count: ${stderr}`);
  return Number(counted.replaceAll(',', ''));
}

/**
 * `--instructions`: the instructions a start executes to its first answer (and its stop), against
 * those of `node -e 0`, counted by valgrind (cachegrind): unlike time, the count barely moves
 * with the machine's load (a few percent, from the threads' interleaving). One run each; slow.
 */
async function countInstructions() {
  const node = spawnSync(CACHEGRIND[0], [...CACHEGRIND.slice(1), process.execPath, '-e', '0'], {
    encoding: 'utf8',
    env,
  });
  if (node.error) throw new Error(`--instructions needs valgrind on PATH: ${node.error.message}`);
  const baseline = instructions(node.stderr);
  const server = instructions((await firstAnswer(CACHEGRIND)).stderr);
  console.log(
    `instructions to the first answer (valgrind): ${(server / 1e6).toFixed(0)} M, node -e 0 ${(baseline / 1e6).toFixed(0)} M: ${(server / baseline).toFixed(1)} x`,
  );
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

try {
  // The first start migrates the database; the measured ones find it migrated.
  await firstAnswer();
  if (process.argv.includes('--instructions')) await countInstructions();
  const ratios = [];
  const gateway = [];
  const node = [];
  const cpu = [];
  const cpuRatios = [];
  for (let run = 0; run < RUNS; run += 1) {
    const baseline = nodeBaseline();
    const baselineCpu = nodeCpu();
    const server = await firstAnswer();
    node.push(baseline);
    gateway.push(server.ms);
    ratios.push(server.ms / baseline);
    cpu.push(server.cpu);
    cpuRatios.push(server.cpu / baselineCpu);
  }
  const ratio = median(ratios);
  console.log(
    `gateway-server start-up: first answer after ${median(gateway).toFixed(0)} ms, node -e 0 ${median(node).toFixed(0)} ms (medians of ${RUNS})`,
  );
  console.log(
    `CPU time to the first answer ${median(cpu).toFixed(0)} ms, ${median(cpuRatios).toFixed(1)} x what node -e 0 has used when its script runs (medians)`,
  );
  console.log(
    `${ratio <= TARGET_RATIO ? 'PASS' : 'FAIL'} ratio <= ${TARGET_RATIO}: ${ratio.toFixed(2)}`,
  );
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
