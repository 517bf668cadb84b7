/**
 * MCP benchmark: `tools/call` of an echo tool over real HTTP on 127.0.0.1, through the Gateway
 * (token auth, role policy, execution record) and through a bare MCP SDK v2 server with the same
 * tool, both serving 2026-07-28 statelessly, measured in the same run at 1 and 16 concurrent
 * clients. Each server runs in its own process; this process only generates load.
 *
 * Prints calls/s of both, their ratio, the Gateway's added p50 and p99 latency, each server
 * process's CPU time per call (which the ratio follows when the servers are busy), and the RSS
 * growth of the Gateway and of the federated Gateway over `BENCH_RSS_CALLS` calls (default
 * 30,000; the target is per 100,000), measured after `BENCH_RSS_WARMUP` (default 50,000) calls:
 * V8 sizes its heap over the first tens of thousands of calls, which is one-off growth, not a
 * leak.
 * The federated case (issue 16) calls the bare server through the Gateway as an upstream source,
 * and through a relay that forwards each call and does no work of its own (server.ts): the
 * relay's ratio is the ceiling of any gateway on this HTTP stack, measured in the same run.
 * Targets (issue 5): ratio >= 0.8 at both concurrencies, added p99 <= 2 ms, RSS growth <= 20 MB
 * per 100,000 calls; issue 16: federated ratio >= 0.5. Runs in about five minutes on 2 idle
 * vCPUs. `BENCH_BARE_BODY=sdk` makes the bare server read request bodies the SDK's documented way
 * (see server.ts); `BENCH_PROFILE=gateway` (or `bare`, `federated`, `relay`) writes a CPU profile
 * of that server. Figures and what they mean are in README.md.
 *
 * Run from the repository root: `pnpm bench mcp`, which builds the Gateway first (the Gateway
 * measured is `packages/server/dist`).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';

interface Target {
  name: 'bare' | 'gateway' | 'federated' | 'relay';
  /** The MCP name of the echo tool it serves. */
  tool: string;
  url: URL;
  token: string | undefined;
  child: ChildProcess;
}

interface Run {
  callsPerSecond: number;
  p50: number;
  p99: number;
  /** The server process's CPU time (user + system) per call, in microseconds. */
  cpuPerCall: number;
}

/**
 * Rounds per concurrency. Each round measures both servers back to back (in alternating order),
 * and the figures are the medians over rounds: on a shared machine the capacity drifts during a
 * run, and a ratio taken within a round is steadier than one of two separate bests.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CALLS = {
  1: Number(process.env.BENCH_CALLS_1 ?? 2000),
  16: Number(process.env.BENCH_CALLS_16 ?? 6000),
};
const WARMUP = 2000;
/**
 * Calls before the RSS baseline, so one-off growth (JIT, heap sizing) is not counted as a leak.
 * RSS grows in steps, not per call: on a slower machine 30,000 calls after 20,000 read +31 and
 * +34 MB, after 50,000 +1.8 to +3.3 MB in four runs of five (+45.9 in one), and 100,000 calls
 * after 20,000 read +12.4 MB. Only a run of 100,000 judges the target fairly.
 */
const RSS_WARMUP = Number(process.env.BENCH_RSS_WARMUP ?? 50_000);
/** Calls the RSS growth is measured over; the 20 MB target is per 100,000 calls. */
const RSS_CALLS = Number(process.env.BENCH_RSS_CALLS ?? 30_000);
const serverScript = fileURLToPath(new URL('./server.ts', import.meta.url));
const built = fileURLToPath(new URL('../../packages/server/dist/index.js', import.meta.url));
if (!existsSync(built)) {
  console.error('error: the Gateway is not built; run `pnpm bench mcp`, which builds it first');
  process.exit(2);
}
// Resolution for the server processes only (tsx reads its `paths`): the workspace packages to
// their sources, and the bare server's packages to the server package's dependencies, since
// bench/ has none. Not a tsconfig for type-checking.
const tsconfig = fileURLToPath(new URL('./tsx-paths.json', import.meta.url));

/** `BENCH_PROFILE=gateway` (or `bare`): that server writes a V8 CPU profile to bench/mcp/profiles. */
const PROFILE = process.env.BENCH_PROFILE;
const profileDir = fileURLToPath(new URL('./profiles', import.meta.url));

async function start(name: Target['name'], upstream?: URL): Promise<Target> {
  const profile = PROFILE === name ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
  const args = upstream === undefined ? [name] : [name, upstream.origin];
  const child = fork(serverScript, args, {
    execArgv: ['--expose-gc', ...profile, '--import', 'tsx'],
    env: { ...process.env, TSX_TSCONFIG_PATH: tsconfig },
    // The Gateway's request log goes to stdout, as in production; here to /dev/null.
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const started = await new Promise<{ url: string; token?: string }>((resolve, reject) => {
    child.once('message', (message: { started: { url: string; token?: string } }) =>
      resolve(message.started),
    );
    child.once('exit', (code) => reject(new Error(`${name} server exited (${code})`)));
  });
  const tool = name === 'federated' ? 'up.bench.echo.say' : 'bench.echo.say';
  return { name, tool, url: new URL('/mcp', started.url), token: started.token, child };
}

function body(id: number, tool: string): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name: tool,
      arguments: { text: 'hello' },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
}

function call(target: Target, agent: Agent, id: number): Promise<number> {
  const payload = body(id, target.tool);
  const headers: Record<string, string> = {
    accept: 'application/json, text/event-stream',
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(payload)),
    'mcp-method': 'tools/call',
    'mcp-name': target.tool,
    'mcp-protocol-version': '2026-07-28',
  };
  if (target.token !== undefined) headers.authorization = `Bearer ${target.token}`;
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(target.url, { method: 'POST', agent, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () => {
        if (
          res.statusCode !== 200 ||
          !text.includes('"structuredContent"') ||
          text.includes('"isError":true')
        ) {
          reject(
            new Error(`${target.name}: unexpected answer ${res.statusCode} ${text.slice(0, 300)}`),
          );
        } else {
          resolve(performance.now() - started);
        }
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

async function load(target: Target, concurrency: number, calls: number): Promise<Run> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies: number[] = [];
  let next = 0;
  const cpuBefore = await cpuTime(target);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < calls) {
        next += 1;
        latencies.push(await call(target, agent, next));
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpuPerCall = ((await cpuTime(target)) - cpuBefore) / calls;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)] ?? 0;
  return { callsPerSecond: calls / seconds, p50: at(0.5), p99: at(0.99), cpuPerCall };
}

/** The server process's CPU time so far (user + system), in microseconds. */
function cpuTime(target: Target): Promise<number> {
  return new Promise((resolve) => {
    target.child.once('message', (message: { cpu: number }) => resolve(message.cpu));
    target.child.send('cpu');
  });
}

/** A server's memory after a GC, as `process.memoryUsage()` tells it. */
interface Memory {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
}

function memory(target: Target): Promise<Memory> {
  return new Promise((resolve) => {
    target.child.once('message', (message: Memory) => resolve(message));
    target.child.send('rss');
  });
}

const fmt = (n: number, digits = 2) => n.toFixed(digits);
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}
const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');

const bare = await start('bare');
const gateway = await start('gateway').catch((error: unknown) => {
  bare.child.kill();
  throw error;
});
// BENCH_FEDERATED=0 leaves the federated case out.
const federated =
  process.env.BENCH_FEDERATED === '0'
    ? undefined
    : await start('federated', bare.url).catch((error: unknown) => {
        bare.child.kill();
        gateway.child.kill();
        throw error;
      });
// The relay: a forwarder on the same stack doing no work of its own, the ceiling of the
// federated ratio (see server.ts).
const relay =
  federated === undefined
    ? undefined
    : await start('relay', bare.url).catch((error: unknown) => {
        for (const target of [bare, gateway, federated]) target.child.kill();
        throw error;
      });
try {
  for (const target of [bare, gateway]) await load(target, 16, WARMUP);
  console.log(
    'MCP benchmark: echo tool, tools/call over HTTP on 127.0.0.1, 2026-07-28 stateless; ' +
      `bare server reads bodies ${process.env.BENCH_BARE_BODY === 'sdk' ? 'the SDK way' : 'as text, like the Gateway'}`,
  );
  console.log(
    `medians of ${ROUNDS} rounds, each measuring both servers back to back (ratio and added latency taken within each round)`,
  );
  console.log(
    'conc  bare calls/s  gateway calls/s  ratio  bare p50/p99 ms  gateway p50/p99 ms  added p50/p99 ms  CPU µs/call bare/gateway',
  );
  const rows: { concurrency: number; ratio: number; addedP99: number }[] = [];
  for (const concurrency of [1, 16] as const) {
    const runs: Record<'bare' | 'gateway', Run[]> = { bare: [], gateway: [] };
    const ratios: number[] = [];
    const addedP50s: number[] = [];
    const addedP99s: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const order = round % 2 === 0 ? [bare, gateway] : [gateway, bare];
      const measured: Partial<Record<Target['name'], Run>> = {};
      for (const target of order)
        measured[target.name] = await load(target, concurrency, CALLS[concurrency]);
      const { bare: bareRun, gateway: gatewayRun } = measured as Record<'bare' | 'gateway', Run>;
      runs.bare.push(bareRun);
      runs.gateway.push(gatewayRun);
      ratios.push(gatewayRun.callsPerSecond / bareRun.callsPerSecond);
      addedP50s.push(gatewayRun.p50 - bareRun.p50);
      addedP99s.push(gatewayRun.p99 - bareRun.p99);
    }
    const typical = (list: Run[]): Run => ({
      callsPerSecond: median(list.map((run) => run.callsPerSecond)),
      p50: median(list.map((run) => run.p50)),
      p99: median(list.map((run) => run.p99)),
      cpuPerCall: median(list.map((run) => run.cpuPerCall)),
    });
    const b = typical(runs.bare);
    const g = typical(runs.gateway);
    const ratio = median(ratios);
    const addedP50 = median(addedP50s);
    const addedP99 = median(addedP99s);
    rows.push({ concurrency, ratio, addedP99 });
    console.log(
      [
        String(concurrency).padEnd(4),
        fmt(b.callsPerSecond, 0).padStart(12),
        fmt(g.callsPerSecond, 0).padStart(16),
        fmt(ratio).padStart(6),
        `${fmt(b.p50)}/${fmt(b.p99)}`.padStart(16),
        `${fmt(g.p50)}/${fmt(g.p99)}`.padStart(19),
        `${fmt(addedP50)}/${fmt(addedP99)}`.padStart(17),
        `${fmt(b.cpuPerCall, 0)}/${fmt(g.cpuPerCall, 0)}`.padStart(24),
      ].join('  '),
    );
  }

  // Issue 16: the Gateway in front of the bare server as an upstream, against the bare server
  // called directly (two hops against one).
  const federatedRows: { concurrency: number; ratio: number; relayRatio: number }[] = [];
  if (federated !== undefined && relay !== undefined) {
    await load(federated, 16, WARMUP);
    await load(relay, 16, WARMUP);
    console.log(
      'federated: Gateway -> bare server as an upstream MCP source, against the bare server directly',
    );
    console.log(
      'conc  bare calls/s  federated calls/s  ratio  bare p50/p99 ms  federated p50/p99 ms  CPU µs/call bare/federated  relay ratio  relay p50 ms  relay CPU µs/call',
    );
    for (const concurrency of [1, 16] as const) {
      const ratios: number[] = [];
      const relayRatios: number[] = [];
      const pairs: { b: Run; f: Run; r: Run }[] = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        const first = round % 2 === 0;
        const b1 = first ? await load(bare, concurrency, CALLS[concurrency]) : undefined;
        const f = await load(federated, concurrency, CALLS[concurrency]);
        const r = await load(relay, concurrency, CALLS[concurrency]);
        const b = b1 ?? (await load(bare, concurrency, CALLS[concurrency]));
        pairs.push({ b, f, r });
        ratios.push(f.callsPerSecond / b.callsPerSecond);
        relayRatios.push(r.callsPerSecond / b.callsPerSecond);
      }
      const pick = (side: 'b' | 'f' | 'r', key: keyof Run) =>
        median(pairs.map((pair) => pair[side][key]));
      const ratio = median(ratios);
      const relayRatio = median(relayRatios);
      federatedRows.push({ concurrency, ratio, relayRatio });
      console.log(
        [
          String(concurrency).padEnd(4),
          fmt(pick('b', 'callsPerSecond'), 0).padStart(12),
          fmt(pick('f', 'callsPerSecond'), 0).padStart(18),
          fmt(ratio).padStart(6),
          `${fmt(pick('b', 'p50'))}/${fmt(pick('b', 'p99'))}`.padStart(16),
          `${fmt(pick('f', 'p50'))}/${fmt(pick('f', 'p99'))}`.padStart(21),
          `${fmt(pick('b', 'cpuPerCall'), 0)}/${fmt(pick('f', 'cpuPerCall'), 0)}`.padStart(26),
          fmt(relayRatio).padStart(11),
          fmt(pick('r', 'p50')).padStart(12),
          fmt(pick('r', 'cpuPerCall'), 0).padStart(17),
        ].join('  '),
      );
    }
  }

  // The plugin Gateway's, and the federated one's: its upstream client is a path of its own.
  const growths: { name: string; rss: number }[] = [];
  for (const target of [gateway, federated]) {
    if (target === undefined) continue;
    await load(target, 16, RSS_WARMUP);
    const before = await memory(target);
    const started = performance.now();
    await load(target, 16, RSS_CALLS);
    const after = await memory(target);
    const mb = (key: keyof Memory) => (after[key] - before[key]) / 1024 / 1024;
    growths.push({ name: target.name, rss: mb('rss') });
    console.log(
      `${target.name} growth over ${RSS_CALLS} calls (16 clients, after ${RSS_WARMUP} warm-up calls, each after a GC): ` +
        `RSS ${fmt(mb('rss'), 1)} MB; JS heap ${fmt(mb('heapUsed'), 1)} MB used, ${fmt(mb('heapTotal'), 1)} MB reserved; ` +
        `external ${fmt(mb('external'), 1)} MB (${fmt((performance.now() - started) / 1000, 1)} s)`,
    );
  }
  for (const row of rows) {
    console.log(
      `${verdict(row.ratio >= 0.8)} ratio >= 0.8 at ${row.concurrency} client(s): ${fmt(row.ratio)}`,
    );
    console.log(
      `${verdict(row.addedP99 <= 2)} added p99 <= 2 ms at ${row.concurrency} client(s): ${fmt(row.addedP99)} ms`,
    );
  }
  for (const row of federatedRows) {
    console.log(
      `${verdict(row.ratio >= 0.5)} federated ratio >= 0.5 at ${row.concurrency} client(s): ${fmt(row.ratio)}` +
        ` (a relay doing no work of its own: ${fmt(row.relayRatio)})`,
    );
  }
  for (const { name, rss } of growths) {
    console.log(
      `${verdict(rss <= 20)} ${name} RSS growth <= 20 MB over ${RSS_CALLS} calls: ${fmt(rss, 1)} MB` +
        (RSS_CALLS < 100_000
          ? ' (the target is per 100,000: run with BENCH_RSS_CALLS=100000)'
          : ''),
    );
  }
} finally {
  for (const target of [bare, gateway, federated, relay]) target?.child.send('stop');
}
