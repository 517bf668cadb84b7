/**
 * What the Gateway's upstream request costs the upstream (issue 37, README.md `env44`): the bare
 * SDK server is the one process every federated side calls, and behind the Gateway it spent more
 * CPU a call than behind the relays (`stages43`), which forward the bench client's request as it
 * came. This counts the bare server's instructions a call for each request it may be sent.
 *
 * It first captures the `tools/call` the Gateway sends upstream as it is: a federated side is
 * started with a tap in front of the bare server (a proxy in this process that keeps the first
 * call's body). Then it starts the bare server under callgrind (instrumentation off while it
 * starts and warms up) and calls its echo tool, one call at a time, with each of these bodies:
 * - `client`: the bench client's own (modern-call.ts), as the relays forward it;
 * - `gateway`: the Gateway's, as captured (its request id renumbered per call, in its own form);
 * - `gateway, capabilities {}`: the Gateway's with the bench client's (empty) capabilities;
 * - `gateway, no <key>`: the Gateway's without one of the capabilities it declares, for each.
 *
 * `ENVELOPE_WARMUP` calls (default 4,000, the bodies in turn) come first; then `ENVELOPE_ROUNDS`
 * rounds (default 4, the order mirrored each round) of `ENVELOPE_CALLS` calls a body (default
 * 300), each counted apart. A round's count moves by up to ~250 k a call with the scavenges and
 * compilations that fall in it, so it prints each body's lowest round (the steady call) and its
 * median, and the lowest against the client's.
 *
 * `pnpm exec tsx bench/mcp/upstream-envelope.ts`, after `pnpm --filter @gateway/sdk --filter
 * @gateway/server build`; needs valgrind; about two minutes.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent, createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { control } from './callgrind-control.js';
import { callBody, postCall, postPayload } from './modern-call.js';
import { quantile } from './segments-trace.js';
import { startSide } from './sides.js';

const WARMUP = Number(process.env.ENVELOPE_WARMUP ?? 4000);
const ROUNDS = Number(process.env.ENVELOPE_ROUNDS ?? 4);
const CALLS = Number(process.env.ENVELOPE_CALLS ?? 300);
const OUT = process.env.ENVELOPE_OUT ?? '/tmp/upstream-envelope';
const TOOL = 'bench.echo.say';
const CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';

/** Headers a proxy does not pass on: its own connection's, and the length it sets itself. */
const HOP = new Set(['host', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

type Body = { id: number | string; params: { _meta: Record<string, unknown> } };

/** Passes `req` on to `origin` and its answer back, keeping the first `tools/call`'s body. */
async function tapped(
  origin: string,
  req: IncomingMessage,
  res: ServerResponse,
  keep: (body: string) => void,
): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  if (body.includes('"tools/call"')) keep(body.toString());
  const headers = Object.entries(req.headers).filter(
    (entry): entry is [string, string] => !HOP.has(entry[0]) && typeof entry[1] === 'string',
  );
  const answer = await fetch(new URL(req.url ?? '/', origin), {
    method: req.method,
    headers,
    ...(body.length === 0 ? {} : { body }),
  });
  res.writeHead(
    answer.status,
    [...answer.headers].filter(([name]) => !HOP.has(name)),
  );
  if (answer.body === null) {
    res.end();
    return;
  }
  // A stream the Gateway keeps open (its notices) breaks when the bare server stops.
  const stream = Readable.fromWeb(answer.body).on('error', () => res.destroy());
  stream.pipe(res);
}

/** The `tools/call` body the Gateway sends the bare server when its federated tool is called. */
async function gatewayBody(): Promise<Body> {
  const bare = await startSide('bare');
  let captured: string | undefined;
  const tap = createServer((req, res) => {
    tapped(bare.url.origin, req, res, (body) => {
      captured ??= body;
    }).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => tap.listen(0, '127.0.0.1', resolve));
  const { port } = tap.address() as AddressInfo;
  const federated = await startSide('federated', `http://127.0.0.1:${port}`);
  const agent = new Agent({ keepAlive: true });
  try {
    await postCall(federated.url, agent, federated.tool, federated.token, 1);
  } finally {
    agent.destroy();
    federated.child.kill();
    bare.child.kill();
    tap.closeAllConnections();
    tap.close();
  }
  if (captured === undefined) throw new Error('the Gateway sent its upstream no tools/call');
  return JSON.parse(captured) as Body;
}

/** Each body to count, by name, made for request `n`. */
function bodies(gateway: Body): Map<string, (n: number) => string> {
  const numbered = (body: Body, n: number) =>
    JSON.stringify({ ...body, id: typeof gateway.id === 'string' ? `gw-${n}` : n });
  const withCapabilities = (capabilities: Record<string, unknown>): Body => ({
    ...gateway,
    params: { ...gateway.params, _meta: { ...gateway.params._meta, [CAPABILITIES]: capabilities } },
  });
  const declared = (gateway.params._meta[CAPABILITIES] ?? {}) as Record<string, unknown>;
  const made = new Map<string, (n: number) => string>([
    ['client', (n) => callBody(n, TOOL)],
    ['gateway', (n) => numbered(gateway, n)],
    ['gateway, capabilities {}', (n) => numbered(withCapabilities({}), n)],
  ]);
  for (const key of Object.keys(declared)) {
    const { [key]: _left, ...others } = declared;
    made.set(`gateway, no ${key}`, (n) => numbered(withCapabilities(others), n));
  }
  return made;
}

/** The bare server under callgrind, instrumentation off until turned on. */
async function countedBare(): Promise<{ child: ChildProcess; url: URL }> {
  const serverScript = fileURLToPath(new URL('./server.ts', import.meta.url));
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      '--smc-check=all-non-file',
      '--separate-threads=yes',
      `--callgrind-out-file=${OUT}/callgrind.%p`,
      process.execPath,
      // As instructions.ts counts: callgrind's pace must not shrink the young generation.
      '--min-semi-space-size=32',
      '--no-memory-reducer',
      '--import',
      'tsx',
      serverScript,
      'bare',
    ],
    {
      env: {
        ...process.env,
        TSX_TSCONFIG_PATH: fileURLToPath(new URL('./tsx-paths.json', import.meta.url)),
        BENCH_BARE_KEEPALIVE_MS: '600000',
      },
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    },
  );
  const started = await new Promise<{ url: string }>((resolve, reject) => {
    child.once('message', (message: { started: { url: string } }) => resolve(message.started));
    child.once('exit', (code) => reject(new Error(`the counted bare server exited (${code})`)));
  });
  return { child, url: new URL('/mcp', started.url) };
}

/** The event loop thread's instructions in dump `part` of `pid`. */
function dumped(pid: number, part: number): number {
  const file = `${OUT}/callgrind.${pid}.${part}-01`;
  if (!existsSync(file)) throw new Error(`no dump ${part} of ${pid} in ${OUT}`);
  const total = /^(?:totals|summary): (\d+)/m.exec(readFileSync(file, 'utf8'))?.[1];
  if (total === undefined) throw new Error(`no totals in ${file}`);
  return Number(total);
}

if (spawnSync('valgrind', ['--version']).error !== undefined) {
  console.error('upstream-envelope.ts needs valgrind: install it (Debian: valgrind).');
  process.exit(1);
}
const gateway = await gatewayBody();
console.log(`the Gateway's upstream request: ${JSON.stringify(gateway)}`);
const made = bodies(gateway);
rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
const bare = await countedBare();
const pid = bare.child.pid as number;
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
let n = 0;
const run = async (make: (n: number) => string, calls: number) => {
  for (let i = 0; i < calls; i += 1) {
    n += 1;
    await postPayload(bare.url, agent, TOOL, undefined, make(n));
  }
};
try {
  const entries = [...made];
  const names = entries.map(([name]) => name);
  for (let slice = 0; slice * 400 < WARMUP; slice += 1) {
    const [, make] = entries[slice % entries.length] as (typeof entries)[number];
    await run(make, 400);
  }
  control(pid, '-i', 'on');
  const counts = new Map<string, number[]>(names.map((name) => [name, []]));
  let part = 0;
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [name, make] of round % 2 === 0 ? entries : [...entries].reverse()) {
      control(pid, '-z');
      await run(make, CALLS);
      control(pid, '-d');
      part += 1;
      counts.get(name)?.push(dumped(pid, part) / CALLS);
    }
  }
  const lowest = (name: string) => Math.min(...(counts.get(name) ?? []));
  const base = lowest('client');
  console.log(
    `\ninstructions a call of the bare server's event loop, ${ROUNDS} rounds of ${CALLS}:`,
  );
  console.log('body                                 lowest   median  lowest - client');
  for (const name of names) {
    const values = counts.get(name) ?? [];
    const k = (value: number) => `${(value / 1000).toFixed(1)} k`.padStart(8);
    const diff = `${lowest(name) >= base ? '+' : ''}${((lowest(name) - base) / 1000).toFixed(1)} k`;
    console.log(
      `${name.padEnd(34)} ${k(lowest(name))} ${k(quantile(values, 0.5))}  ${diff.padStart(10)}`,
    );
  }
} finally {
  agent.destroy();
  bare.child.kill();
}
