/**
 * When each step of a one-client call happens inside the middle process, at real speed (issue 37,
 * README.md `stages43`). `segments.ts` cuts a call at its system calls; this cuts the middle's own
 * part at its steps: Node's `request` event, the entry of the Gateway's functions along a
 * federated call (marks put into a copy of the build, `MARKS` below), undici queueing the
 * upstream request's write, both socket writes, and the upstream's answer becoming readable
 * (stages-preload.mjs notes them on the monotonic clock).
 *
 * It copies `packages/server/dist` to `packages/server/dist/stages` with a mark at the entry of
 * each function in `MARKS` (each must be found exactly once, or it stops and says which), starts
 * the bare upstream and the sides (`STAGES_SIDES`, default `lean-checked,federated`: server.ts's
 * kinds, `gateway` the plugin call; the relays run as they are and show the preload's steps only)
 * one at a time, warms each up (`STAGES_WARMUP` calls, default 10,000), then notes `STAGES_CALLS`
 * sequential calls (default 3,000) and prints, per side, each step's median time from the request
 * event and the median step from the step before. A mark costs ~0.5-1 µs: compare steps, not totals
 * across sides.
 *
 * `pnpm exec tsx bench/mcp/stages.ts`, after `pnpm --filter @gateway/sdk --filter @gateway/server build`.
 */
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quantile } from './segments-trace.js';

const SIDES = (process.env.STAGES_SIDES ?? 'lean-checked,federated').split(',');
const WARMUP = Number(process.env.STAGES_WARMUP ?? 10_000);
const CALLS = Number(process.env.STAGES_CALLS ?? 3000);

/** Each mark's name, and the text that opens the function it marks in the build. */
const MARKS: [string, string][] = [
  ['adapter listener', 'return async (incoming, outgoing) => {'],
  ['token and owner (mcpPrincipal)', 'async function mcpPrincipal('],
  ['McpEndpoint.handle', 'async handle(request, principal, session, incoming'],
  ['DirectCalls.serve', 'async serve(principal, call, request) {'],
  ['callStages', 'async function callStages('],
  ['upstream tool #forward', 'async #forward('],
  ['transport call', 'async call(method, params, stop, frame, sent) {'],
  ['transport #request', '#request(method, extra, body, stop, sent, whole = false) {'],
  ['upstream answer ends (onResponseEnd)', 'onResponseEnd() {'],
  ['transport #answered', '#answered(message, answer, frame, stop, take) {'],
  ['RunningCall.settle', 'async settle(result, end) {'],
  ['records commit', 'commit(record) {'],
  ['journal append', 'append(rows) {'],
  ['callAnswerText', 'function callAnswerText('],
  ['responseViaCache', 'async function responseViaCache('],
];

const root = fileURLToPath(new URL('../../', import.meta.url));
const dist = join(root, 'packages/server/dist');
const marked = join(dist, 'stages');
const pathsFile = fileURLToPath(new URL('./.stages-paths.json', import.meta.url));
const preload = fileURLToPath(new URL('./stages-preload.mjs', import.meta.url));
const logFile = join(marked, 'log.json');

/** A copy of the build with a mark at the entry of each function in `MARKS`. */
function markedBuild(): void {
  if (!existsSync(join(dist, 'index.js'))) {
    throw new Error('stages.ts measures the build: run `pnpm build` first.');
  }
  rmSync(marked, { recursive: true, force: true });
  for (const entry of readdirSync(dist)) {
    if (entry !== 'stages') cpSync(join(dist, entry), join(marked, entry), { recursive: true });
  }
  const files = readdirSync(marked).filter((name) => name.endsWith('.js'));
  const texts = new Map(files.map((name) => [name, readFileSync(join(marked, name), 'utf8')]));
  for (const [label, opening] of MARKS) {
    const holders = [...texts].filter(([, text]) => text.includes(opening));
    const [name, text] = holders[0] ?? [];
    if (holders.length !== 1 || name === undefined || text?.split(opening).length !== 2) {
      throw new Error(`stages.ts: "${opening}" (${label}) is not in the build exactly once.`);
    }
    const end = text.indexOf('\n', text.indexOf(opening));
    if (text[end - 1] !== '{') throw new Error(`stages.ts: "${opening}" does not open a body.`);
    texts.set(
      name,
      `${text.slice(0, end)} globalThis.__stage?.(${JSON.stringify(label)});${text.slice(end)}`,
    );
  }
  for (const [name, text] of texts) writeFileSync(join(marked, name), text);
  const paths = JSON.parse(readFileSync(new URL('./tsx-paths.json', import.meta.url), 'utf8'));
  paths.compilerOptions.paths['@gateway/server'] = ['../../packages/server/dist/stages/index.js'];
  writeFileSync(pathsFile, JSON.stringify(paths));
}

/** The noted steps as calls: each call's first time at each step, µs after its request event. */
function callsOf(log: [string, number][]): Map<string, number>[] {
  const calls: Map<string, number>[] = [];
  let call: Map<string, number> | undefined;
  let start = 0;
  for (const [label, at] of log) {
    if (label === 'request') {
      start = at;
      call = new Map([[label, 0]]);
      calls.push(call);
    } else if (call !== undefined && !call.has(label)) {
      call.set(label, at - start);
    }
  }
  return calls;
}

const median = (values: readonly number[]) => quantile(values, 0.5);

function report(name: string, log: [string, number][]): void {
  const calls = callsOf(log).slice(0, -1);
  const requests = log.filter(([label]) => label === 'request').map(([, at]) => at);
  const period = median(requests.slice(1).map((at, i) => at - (requests[i] as number)));
  const labels = [...new Set(calls.flatMap((call) => [...call.keys()]))];
  const at = new Map(
    labels.map((label) => [label, median(calls.flatMap((call) => call.get(label) ?? []))]),
  );
  labels.sort((a, b) => (at.get(a) as number) - (at.get(b) as number));
  console.log(
    `${name}: ${calls.length} calls, median ${period.toFixed(0)} µs from request to request`,
  );
  console.log('  µs after the request  µs after the step before  calls seen  step');
  labels.forEach((label, i) => {
    const before = labels[i - 1];
    const steps = calls.flatMap((call) => {
      const here = call.get(label);
      const there = before === undefined ? undefined : call.get(before);
      return here === undefined || there === undefined ? [] : [here - there];
    });
    const seen = calls.filter((call) => call.has(label)).length / calls.length;
    console.log(
      `  ${(at.get(label) as number).toFixed(0).padStart(20)}  ${steps.length === 0 ? ''.padStart(24) : median(steps).toFixed(0).padStart(24)}  ${`${(seen * 100).toFixed(0)} %`.padStart(10)}  ${label}`,
    );
  });
}

markedBuild();
process.env.BENCH_TSCONFIG = pathsFile;
process.env.STAGES_LOG = logFile;
const { load, startInFront, startSide } = await import('./sides.js');
const bare = await startSide('bare');
process.env.STAGES_UPSTREAM_PORT = bare.url.port;
try {
  for (const name of SIDES) {
    const side = await startInFront(name, bare, ['--import', preload]);
    const agent = new Agent({ keepAlive: true });
    try {
      await load(side, agent, 1, WARMUP);
      rmSync(logFile, { force: true });
      process.kill(side.pid, 'SIGUSR1');
      await load(side, agent, 1, CALLS);
      process.kill(side.pid, 'SIGUSR2');
      const asked = performance.now();
      while (!existsSync(logFile)) {
        if (performance.now() - asked > 10_000) throw new Error(`stages.ts: ${name} wrote no log.`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      report(name, JSON.parse(readFileSync(logFile, 'utf8')));
    } finally {
      agent.destroy();
      side.child.kill();
    }
  }
} finally {
  bare.child.kill();
  rmSync(pathsFile, { force: true });
  rmSync(marked, { recursive: true, force: true });
}
