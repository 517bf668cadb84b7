/**
 * Instructions per call, counted by valgrind (callgrind): a figure the machine's load does not
 * move, unlike calls per second or CPU time (issue 37). The Gateway under test (`gateway` or
 * `federated`, server.ts) runs under valgrind with instrumentation off while it starts and warms
 * up; this process (not under valgrind) then turns it on, makes `INSTR_CALLS` calls, and dumps the
 * counts, so a dump holds exactly the Gateway's work for those calls (its timers and record
 * batches included), and nothing of its start or of the client.
 *
 * Paths (`INSTR_PATHS`, comma-separated, default all): `plugin` (2026-07-28 stateless call of the
 * plugin echo tool, as index.ts makes it), `sessions` (a 2025-11-25 session of the SDK v1 client,
 * one per client), `federated` (2026-07-28 call of the bare SDK server's echo tool through the
 * Gateway as an upstream over HTTP; the bare server runs outside valgrind), `bare-session` (the
 * bare SDK v2 session server of the `sessions` case, the same client: what the Gateway's session
 * call is measured against), `relay` (the do-nothing forwarder of the `federated` case of index.ts
 * in front of the same bare server: what a federated call's hop is measured against; not in the
 * default set), `checked` (that relay doing what any gateway that checks and records must,
 * checked-relay.ts), `lean` and `lean-checked` (both on plumbing as light as the Gateway's,
 * lean-relay.ts; none of the three in the default set), `stdio-call` (a 2026-07-28 call of `io.bench.echo.say`, the stdio echo upstream
 * the same Gateway serves, which runs outside valgrind, as `plugin` calls the plugin echo: what a
 * stdio upstream adds to a call; not in the default set), `opens` and
 * `bare-opens` (a whole 2025 session per counted call, from `initialize` to `DELETE`, on the
 * Gateway and on the bare SDK v2 session server; not in the default set). There is no `stdio`
 * path (a 2025 session's call of the stdio upstream, what `BENCH_CASES=stdio` times): under
 * callgrind such a call outlasts the 50 ms a session call's answer is gathered for (`GATHER_MS`),
 * so it was counted on the SDK transport's way (~600 k more), which it never takes natively. Its
 * count is roughly `sessions`' plus what `stdio-call` adds to `plugin`: the session's share and the
 * upstream's are apart.
 * `INSTR_CALLS` (default 300) measured calls, after `INSTR_WARMUP` (default 1,500) at
 * `INSTR_CLIENTS` (default 1) clients. The dumps stay in `bench/mcp/profiles/` for
 * `callgrind_annotate`; `INSTR_PERF_MAP=1` also has node write `/tmp/perf-<pid>.map`, which names
 * JIT-compiled JavaScript (callgrind shows it as `???`; see README.md). `INSTR_TSCONFIG` names
 * another `tsx-paths.json` (absolute paths), to count another worktree's build with this driver.
 * `INSTR_NODE_FLAGS` (default `--min-semi-space-size=32 --no-memory-reducer`, below) are node flags
 * for the counted side. `INSTR_TURNS=1` also cuts the counts at every turn of the event loop: a dump before each answer's
 * write (`uv_try_write`) and before each wait (`epoll_pwait`), and prints the medians, per call,
 * of what ran before the answer went out (the client's wait) and after it (to the next wait):
 * medians leave out the turns a scavenge, a JIT compilation or the execution batch fell in, which
 * move the whole dump by ±50 k a call. Meant for one client and 100-300 calls. On the `federated`
 * path and the relays', and on every path when `stdio-call` is measured, a call's two
 * turns are told apart (the request's parses the client's HTTP, the answer's reads the process's
 * line or the upstream's answer) and each is cut at its first write (the line to the process or
 * the request to the upstream; the answer to the client). Each path keeps its median turns' dumps, named after it
 * (`callgrind.<stamp>.<pid>.<path>.median-before`; of two turns, `.answer-before-1` and the like,
 * one file a dump of the turn), beside those of paths counted before it on
 * the same process; `INSTR_KEEP=1` keeps every turn's dump, and a path's medians are read from
 * its own turns only.
 *
 * Run from the repository root after `pnpm --filter @gateway/sdk --filter @gateway/server build`:
 * `pnpm exec tsx bench/mcp/instructions.ts`. Slow: a few minutes per path on an idle machine.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { control } from './callgrind-control.js';
import { postCall } from './modern-call.js';
import { httpSession } from './sessions.js';

const CALLS = Number(process.env.INSTR_CALLS ?? 300);
const WARMUP = Number(process.env.INSTR_WARMUP ?? 1500);
const CLIENTS = Number(process.env.INSTR_CLIENTS ?? 1);
const TURNS = process.env.INSTR_TURNS === '1';
/**
 * Node flags of the counted side. By default V8's young generation starts at the size it reaches
 * under load at real speed, and V8's memory reducer is off: under callgrind a call takes 30-60
 * times as long, so V8 sees a low allocation rate per millisecond, shrinks the young generation
 * (a scavenge every ~10 calls instead of every ~1,000) and starts major GCs to give memory back,
 * which real speed does not do while serving (README.md, `fedthr38`). `INSTR_NODE_FLAGS=` (empty)
 * counts with V8's defaults, as before.
 */
const NODE_FLAGS = (process.env.INSTR_NODE_FLAGS ?? '--min-semi-space-size=32 --no-memory-reducer')
  .split(' ')
  .filter((flag) => flag !== '');
const KNOWN_PATHS = [
  'plugin',
  'sessions',
  'federated',
  'bare-session',
  'relay',
  'checked',
  'lean',
  'lean-checked',
  'stdio-call',
  'opens',
  'bare-opens',
];
const PATHS = new Set(
  (process.env.INSTR_PATHS ?? 'plugin,sessions,federated').split(',').map((p) => p.trim()),
);
for (const path of PATHS) {
  if (path === 'stdio') {
    throw new Error(
      'INSTR_PATHS: there is no `stdio` path (under callgrind a 2025 session call outlasts its 50 ms gathering and is counted on a way it never takes natively). Count `sessions,plugin,stdio-call` instead: a stdio session call is `sessions` plus what `stdio-call` adds to `plugin`.',
    );
  }
  if (!KNOWN_PATHS.includes(path)) {
    throw new Error(`INSTR_PATHS: unknown path "${path}". Known: ${KNOWN_PATHS.join(', ')}.`);
  }
}
const serverScript = fileURLToPath(new URL('./server.ts', import.meta.url));
const tsconfig =
  process.env.INSTR_TSCONFIG ?? fileURLToPath(new URL('./tsx-paths.json', import.meta.url));
const outDir = fileURLToPath(new URL('./profiles', import.meta.url));
mkdirSync(outDir, { recursive: true });
const stamp = new Date().toISOString().replace(/[:.]/g, '-');

interface Side {
  child: ChildProcess;
  url: URL;
  token: string | undefined;
}

/** A server.ts side, under callgrind (instrumentation off) when `counted`. */
async function start(kind: string, counted: boolean, upstream?: string): Promise<Side> {
  const node = [
    '--expose-gc',
    ...(counted && process.env.INSTR_PERF_MAP === '1' ? ['--perf-basic-prof-only-functions'] : []),
    ...(counted ? NODE_FLAGS : []),
    '--import',
    'tsx',
    serverScript,
    kind,
    ...(upstream === undefined ? [] : [upstream]),
  ];
  const command = counted
    ? [
        'valgrind',
        '--tool=callgrind',
        '--instr-atstart=no',
        // V8 writes and rewrites machine code in its heap.
        '--smc-check=all-non-file',
        '--dump-instr=yes',
        // The event loop's thread apart from V8's helpers (JIT compiler, concurrent marking).
        '--separate-threads=yes',
        // Runtime functions (C++) called from JavaScript, told apart by their JavaScript caller.
        '--separate-callers1=Builtins_CEntry_Return1_ArgvOnStack_NoBuiltinExit',
        ...(TURNS ? ['--dump-before=uv_try_write', '--dump-before=epoll_pwait'] : []),
        `--callgrind-out-file=${join(outDir, `callgrind.${stamp}.${kind}.%p`)}`,
        process.execPath,
        ...node,
      ]
    : [process.execPath, ...node];
  const child = spawn(command[0] as string, command.slice(1), {
    env: {
      ...process.env,
      TSX_TSCONFIG_PATH: tsconfig,
      BENCH_BARE_KEEPALIVE_MS: '600000',
      BENCH_CONNECTION_TIMEOUT_MS: '600000',
    },
    stdio: ['ignore', 'ignore', counted ? 'ignore' : 'inherit', 'ipc'],
  });
  const started = await new Promise<{ url: string; token?: string }>((resolve, reject) => {
    child.once('message', (message: { started: { url: string; token?: string } }) =>
      resolve(message.started),
    );
    child.once('exit', (code) => reject(new Error(`${kind} exited (${code})`)));
  });
  return { child, url: new URL('/mcp', started.url), token: started.token };
}

/** One 2026-07-28 `tools/call`, as index.ts makes it. */
function call(side: Side, agent: Agent, tool: string, id: number): Promise<void> {
  return postCall(side.url, agent, tool, side.token, id);
}

/** `calls` calls over `CLIENTS` lanes, each keeping one in flight. */
async function lanes(calls: number, one: (lane: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, lane) => {
      while (next < calls) {
        next += 1;
        await one(lane);
      }
    }),
  );
}

/**
 * The instructions of dump `part` of `pid`: of its main thread (the event loop: JavaScript, the
 * HTTP parser, SQLite, the scavenger's share) and of all its threads (V8's JIT compiler and
 * concurrent marking besides, which run when they are due, not every call).
 */
function dumped(pid: number, part: number): { file: string; main: number; all: number } {
  const prefix = `callgrind.${stamp}.`;
  const files = readdirSync(outDir).filter(
    (name) =>
      name.startsWith(prefix) && name.includes(`.${pid}.${part}-`) && !name.endsWith('.map'),
  );
  let main = 0;
  let all = 0;
  for (const name of files) {
    const totals = /^(?:totals|summary): (\d+)/m.exec(
      readFileSync(join(outDir, name), 'utf8'),
    )?.[1];
    if (totals === undefined) throw new Error(`no totals in ${name}`);
    all += Number(totals);
    if (name.endsWith('-01')) main = Number(totals);
  }
  if (files.length === 0) throw new Error(`no dump ${part} of ${pid} in ${outDir}`);
  const mainFile = files.find((name) => name.endsWith('-01')) ?? files[0];
  return { file: join(outDir, mainFile ?? ''), main, all };
}

/**
 * The medians of the event loop thread's turns of `pid` (`INSTR_TURNS`) in measuring path
 * `measured`: the work before an answer's write, and after it to the next wait. Only the dumps
 * written since the measurement began count (not in `earlier`): another path measured before on
 * the same process left its own. The turn of each median stays, named after the path
 * (`callgrind.<stamp>.<pid>.<path>.median-before`, `.median-after`, with the JIT's map when
 * written), so each path measured keeps its own; the other dumps are removed once read.
 */
function turns(
  pid: number,
  measured: { name: string; earlier: ReadonlySet<string> },
  upstreamTurns = false,
): string {
  const before: { total: number; path: string }[] = [];
  const after: { total: number; path: string }[] = [];
  const prefix = `callgrind.${stamp}.`;
  const dumpsOf = readdirSync(outDir).filter(
    (name) =>
      name.startsWith(prefix) &&
      name.includes(`.${pid}.`) &&
      !name.endsWith('.map') &&
      !measured.earlier.has(name),
  );
  const slug = measured.name.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '');
  for (const name of dumpsOf) {
    const path = join(outDir, name);
    if (!name.endsWith('-01')) continue;
    const text = readFileSync(path, 'utf8');
    const total = Number(/^(?:totals|summary): (\d+)/m.exec(text)?.[1] ?? 0);
    const trigger = /^desc: Trigger: (.*)$/m.exec(text)?.[1] ?? '';
    if (total > 0 && trigger.includes('uv_try_write')) before.push({ total, path });
    else if (total > 0 && trigger.includes('epoll_pwait')) after.push({ total, path });
  }
  const map = `/tmp/perf-${pid}.map`;
  const median = (turns: { total: number; path: string }[], kept: string) => {
    const middle = turns.sort((a, b) => a.total - b.total)[Math.floor(turns.length / 2)];
    if (middle === undefined) return '0';
    const keep = join(outDir, `callgrind.${stamp}.${pid}.${slug}.median-${kept}`);
    copyFileSync(middle.path, keep);
    if (existsSync(map)) copyFileSync(map, `${keep}.map`);
    return middle.total.toLocaleString('en');
  };
  const summary = upstreamTurns
    ? pipeTurns(dumpsOf, pid, slug)
    : `median turn before the answer's write ${median(before, 'before')} instructions (${before.length} turns), after it ${median(after, 'after')} (${after.length} turns)`;
  if (process.env.INSTR_KEEP !== '1') for (const name of dumpsOf) rmSync(join(outDir, name));
  return summary;
}

/**
 * The medians of a call's two turns when it calls an upstream (`INSTR_TURNS` on the
 * `stdio-call`, `federated` and `relay` paths): the request's turn (the one that parses the
 * client's HTTP with Node's own parser, `llhttp_execute`) up to its first write (the line to the
 * process, or the request to the upstream) and after it to the wait, and the answer's turn (the
 * upstream's answer read, no client HTTP parsed: undici's parser is WASM) up to its write (the
 * answer to the client) and after it. Turns with no write (timers, batches) are counted apart.
 * Each median turn's dumps stay, named after the path and the part
 * (`callgrind.<stamp>.<pid>.<path>.answer-before-1`, ...), with the JIT's map when written.
 */
function pipeTurns(dumpsOf: string[], pid: number, slug: string): string {
  const part = (name: string) => Number(/\.(\d+)-01$/.exec(name)?.[1] ?? Number.NaN);
  const ordered = dumpsOf
    .filter((name) => name.endsWith('-01') && !Number.isNaN(part(name)))
    .sort((a, b) => part(a) - part(b));
  type Turn = { total: number; files: string[] };
  const kinds = {
    'request-before': [] as Turn[],
    'request-after': [] as Turn[],
    'answer-before': [] as Turn[],
    'answer-after': [] as Turn[],
  };
  let others = 0;
  let segments: { name: string; total: number; write: boolean; http: boolean }[] = [];
  for (const name of ordered) {
    const text = readFileSync(join(outDir, name), 'utf8');
    const total = Number(/^(?:totals|summary): (\d+)/m.exec(text)?.[1] ?? 0);
    const trigger = /^desc: Trigger: (.*)$/m.exec(text)?.[1] ?? '';
    segments.push({
      name,
      total,
      write: trigger.includes('uv_try_write'),
      http: text.includes('llhttp_execute'),
    });
    if (!trigger.includes('epoll_pwait')) continue;
    const first = segments.findIndex((segment) => segment.write);
    const turn = (from: number, to: number): Turn => {
      const some = segments.slice(from, to);
      return {
        total: some.reduce((all, segment) => all + segment.total, 0),
        files: some.map((segment) => segment.name),
      };
    };
    const into = segments.some((segment) => segment.http) ? 'request' : 'answer';
    if (first === -1) others += 1;
    else {
      kinds[`${into}-before`].push(turn(0, first + 1));
      kinds[`${into}-after`].push(turn(first + 1, segments.length));
    }
    segments = [];
  }
  const map = `/tmp/perf-${pid}.map`;
  const median = (kind: keyof typeof kinds) => {
    const all = kinds[kind];
    const middle = all.sort((a, b) => a.total - b.total)[Math.floor(all.length / 2)];
    if (middle === undefined) return '0';
    middle.files.forEach((file, index) => {
      const keep = join(outDir, `callgrind.${stamp}.${pid}.${slug}.${kind}-${index + 1}`);
      copyFileSync(join(outDir, file), keep);
      if (existsSync(map)) copyFileSync(map, `${keep}.map`);
    });
    return middle.total.toLocaleString('en');
  };
  return `request's turn: ${median('request-before')} to its first write, ${median('request-after')} after (${kinds['request-before'].length} turns); answer's turn: ${median('answer-before')} to its write, ${median('answer-after')} after (${kinds['answer-before'].length} turns); ${others} turns with no write`;
}

/** How many dumps each side has written. */
const dumps = new Map<number, number>();

/** Warm up, count `CALLS` calls, print the instructions per call. */
async function measure(
  name: string,
  side: Side,
  one: (lane: number, id: number) => Promise<void>,
  fresh?: () => void,
  upstream = PATHS.has('stdio-call'),
): Promise<void> {
  let id = 0;
  await lanes(WARMUP, (lane) => one(lane, ++id));
  const pid = side.child.pid as number;
  // The Gateway closes a connection idle for 5 s, which callgrind_control can take: the measured
  // calls open their own (`fresh`).
  fresh?.();
  // An earlier path's dumps of this process (its medians, every turn with `INSTR_KEEP`).
  const earlier = new Set(TURNS ? readdirSync(outDir) : []);
  control(pid, '--zero');
  control(pid, '-i', 'on');
  await lanes(CALLS, (lane) => one(lane, ++id));
  control(pid, '--dump');
  control(pid, '-i', 'off');
  if (TURNS) {
    console.log(
      `${name}: ${turns(pid, { name, earlier }, upstream)} (${CALLS} calls at ${CLIENTS} client(s), after ${WARMUP})`,
    );
    return;
  }
  const part = (dumps.get(pid) ?? 0) + 1;
  dumps.set(pid, part);
  const { file, main, all } = dumped(pid, part);
  // The JIT's map as it stands at the dump: code compiled later may reuse an address.
  const map = `/tmp/perf-${pid}.map`;
  if (existsSync(map)) copyFileSync(map, `${file}.map`);
  const perCall = (n: number) => Math.round(n / CALLS).toLocaleString('en');
  console.log(
    `${name}: ${perCall(main)} instructions a call on the event loop's thread, ${perCall(all)} on all threads (${CALLS} calls at ${CLIENTS} client(s), after ${WARMUP}; ${file})`,
  );
}

/** Counts `tool`'s calls (the echo tool) through `side` over 2025 sessions, one per client. */
async function measureSessions(name: string, side: Side, tool = 'bench.echo.say'): Promise<void> {
  const sessions = await Promise.all(
    Array.from({ length: CLIENTS }, () => httpSession(side.url, side.token)),
  );
  await measure(name, side, async (lane) => {
    const result = await sessions[lane]?.client.callTool({
      name: tool,
      arguments: { text: 'hello' },
    });
    if (result?.structuredContent === undefined) throw new Error('no structured answer');
  });
  await Promise.all(sessions.map((session) => session.close()));
}

/** Counts 2026-07-28 calls of `tool` through `side`, each measured batch on fresh connections. */
async function measureCalls(name: string, side: Side, tool: string): Promise<void> {
  let agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
  await measure(
    name,
    side,
    () => call(side, agent, tool, 1),
    () => {
      agent.destroy();
      agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
    },
  );
  agent.destroy();
}

/**
 * Counts opening 2025 sessions through `side`: the SDK v1 client's `initialize`, its
 * `notifications/initialized` and standalone GET stream, a first `tools/list`, and the `DELETE`
 * that ends the session, one session per counted "call" (issue 37, `sessopen37`).
 */
async function measureOpens(name: string, side: Side): Promise<void> {
  await measure(name, side, async () => {
    const session = await httpSession(side.url, side.token);
    await session.client.listTools();
    await session.close();
  });
}

const started: ChildProcess[] = [];
try {
  if (['plugin', 'sessions', 'stdio-call', 'opens'].some((path) => PATHS.has(path))) {
    const gateway = await start('gateway', true);
    started.push(gateway.child);
    if (PATHS.has('plugin')) await measureCalls('plugin, 2026-07-28', gateway, 'bench.echo.say');
    if (PATHS.has('sessions')) await measureSessions('2025 session (SDK v1 client)', gateway);
    if (PATHS.has('opens')) await measureOpens('2025 session opened (SDK v1 client)', gateway);
    if (PATHS.has('stdio-call')) {
      await measureCalls('stdio upstream, 2026-07-28', gateway, 'io.bench.echo.say');
    }
  }
  if (PATHS.has('bare-session')) {
    const bare = await start('bare-session', true);
    started.push(bare.child);
    await measureSessions('bare session server (SDK v1 client)', bare);
  }
  if (PATHS.has('bare-opens')) {
    const bare = await start('bare-session', true);
    started.push(bare.child);
    await measureOpens('bare session server, session opened (SDK v1 client)', bare);
  }
  for (const [path, name, tool] of [
    ['federated', 'federated over HTTP, 2026-07-28', 'up.bench.echo.say'],
    ['relay', 'relay (no work of its own), 2026-07-28', 'bench.echo.say'],
    ['checked', 'checked relay (the work any gateway must do), 2026-07-28', 'bench.echo.say'],
    ['lean', "lean relay (plumbing as light as the Gateway's), 2026-07-28", 'bench.echo.say'],
    ['lean-checked', 'lean checked relay, 2026-07-28', 'bench.echo.say'],
  ] as const) {
    if (!PATHS.has(path)) continue;
    const bare = await start('bare', false);
    started.push(bare.child);
    const side = await start(path, true, bare.url.origin);
    started.push(side.child);
    let agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
    const fresh = () => {
      agent.destroy();
      agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
    };
    await measure(name, side, () => call(side, agent, tool, 1), fresh, true);
    agent.destroy();
  }
} finally {
  for (const child of started) child.send('stop');
}
