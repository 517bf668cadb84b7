/**
 * Toolsets benchmark (issue 33): a Gateway serving a many-tools plugin set (100 plugins × 100
 * tools = 10,000) to users whose roles allow 1, 1,000 and 10,000 of them, and 1,000 tools of a
 * realistic shape (10 plugins shaped like the github example's tools: described arguments and an
 * output schema).
 *
 * - `tools/list` through the MCP SDK v1 client (a 2025 session over real HTTP on 127.0.0.1), at 1
 *   and 1,000 tools of each shape: median time per list in alternating rounds, and the 1,000 ÷ 1
 *   ratio (target <= 3), beside the server's CPU time alone and the client's own parse alone.
 * - `gateway.search_tools` on discovery endpoints, server time: a 2026-07-28 `tools/call` handed to
 *   the Gateway in-process (`gateway.fetch`, no socket and no client), its whole handling timed
 *   (authentication, policy, the search, the answer's encoding), at 1, 1,000 and 10,000 tools,
 *   with a plain `tools/call` of a one-tool endpoint as the baseline in the same run (target: p99
 *   <= 5 ms at 10,000 tools); and the first search after a plugin is registered.
 *
 * The Gateway measured is the built package (`packages/server/dist`), which `pnpm bench toolsets`
 * builds first. Settings: `BENCH_LIST_ROUNDS` (default 5), `BENCH_LISTS` (lists per round and
 * size, default 40), `BENCH_SEARCHES` (per size, default 2,000).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { definePlugin, defineTool } from '@gateway/sdk';
import { createGateway } from '@gateway/server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { JSONRPCMessageSchema, ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import { z } from 'zod';

const LIST_ROUNDS = Number(process.env.BENCH_LIST_ROUNDS ?? 5);
const LISTS = Number(process.env.BENCH_LISTS ?? 40);
/** Lists per round of the realistic shape, whose 1,000-tool list costs the v1 client seconds. */
const REAL_LISTS = Number(process.env.BENCH_REAL_LISTS ?? 3);
const SEARCHES = Number(process.env.BENCH_SEARCHES ?? 2000);
const LIST_TARGET = 3;
const SEARCH_TARGET_MS = 5;

const GROUPS = [
  'repos',
  'issues',
  'pulls',
  'users',
  'teams',
  'files',
  'projects',
  'billing',
  'hooks',
  'search',
];
const ACTIONS = [
  'list',
  'get',
  'create',
  'update',
  'delete',
  'search',
  'archive',
  'export',
  'import',
  'sync',
];
const NOUNS = [
  'repository',
  'issue',
  'pull request',
  'user',
  'team',
  'file',
  'project',
  'invoice',
  'webhook',
  'result',
];
const QUERIES = [
  'create issue',
  'list repositories',
  'delete webhook',
  'export billing invoice',
  'sync team members',
  'get file contents',
  'archive project',
  'search pull requests',
  'update user',
  'import files',
  'svc42 hooks',
  '',
];

/** 100 plugins (`svc0` to `svc99`) of 100 tools each, with descriptions and arguments to search. */
function manyTools() {
  return Array.from({ length: 100 }, (_, index) => {
    const id = `svc${index}`;
    const tools = GROUPS.flatMap((group, g) =>
      ACTIONS.map((action, a) =>
        defineTool({
          path: `${id}.${group}.${action}`,
          name: `${capital(action)} ${capital(group)}`,
          description: `${capital(action)}s a ${NOUNS[g]} of service ${index}. Useful to ${action} ${NOUNS[(g + a) % NOUNS.length]} data.`,
          inputSchema: z.object({
            [`${group}Id`]: z.string().optional(),
            limit: z.number().int().optional(),
          }),
          destructive: action === 'delete' || action === 'archive',
          handler: async () => ({ ok: true }),
        }),
      ),
    );
    return definePlugin({ id, name: `Service ${index}`, description: 'Generated.', tools });
  });
}

/**
 * 10 plugins (`real0` to `real9`) of 100 tools each shaped like a real plugin's (the github
 * example's `github.repos.list`): described arguments with an enum, bounds and defaults, and an
 * output schema of a list of objects. About 1,700 bytes listed each, against ~400 for `svc*`.
 */
function realisticTools() {
  return Array.from({ length: 10 }, (_, index) => {
    const id = `real${index}`;
    const tools = GROUPS.flatMap((group, g) =>
      ACTIONS.map((action, a) =>
        defineTool({
          path: `${id}.${group}.${action}`,
          name: `${capital(action)} ${capital(group)}`,
          description: `${capital(action)}s ${NOUNS[g]} records of service ${index}, most recently updated first unless sort says otherwise. Useful to ${action} ${NOUNS[(g + a) % NOUNS.length]} data; page through long lists with page.`,
          inputSchema: z.object({
            visibility: z
              .enum(['all', 'public', 'private'])
              .default('all')
              .describe('Which records to include by visibility. Default all.'),
            sort: z
              .enum(['created', 'updated', 'name'])
              .default('updated')
              .describe('Sort order: created, updated or name. Default updated.'),
            perPage: z
              .number()
              .int()
              .min(1)
              .max(100)
              .default(30)
              .describe('Records per page, 1 to 100. Default 30.'),
            page: z.number().int().min(1).default(1).describe('Page number, from 1. Default 1.'),
          }),
          outputSchema: z.object({
            items: z.array(
              z.object({
                id: z.string().describe(`The ${NOUNS[g]}'s id.`),
                name: z.string(),
                private: z.boolean(),
                description: z.string().nullable(),
                url: z.string().describe('Its page on the service.'),
                updatedAt: z.string().describe('ISO 8601 time of the last update.'),
              }),
            ),
          }),
          destructive: action === 'delete' || action === 'archive',
          handler: async () => ({ items: [] }),
        }),
      ),
    );
    return definePlugin({ id, name: `Real ${index}`, description: 'Generated.', tools });
  });
}

function capital(word: string): string {
  return `${word.charAt(0).toUpperCase()}${word.slice(1)}`;
}

const dir = mkdtempSync(join(tmpdir(), 'gateway-bench-toolsets-'));
const serviceSecret = randomBytes(24).toString('hex');
const plugins = manyTools();
const realistic = realisticTools();
/** Registered after the searches: catalog changes, for the first search after one. */
const late = Array.from({ length: 6 }, (_, n) =>
  definePlugin({
    id: `late${n}`,
    name: `Late ${n}`,
    description: 'Generated.',
    tools: [
      defineTool({
        path: `late${n}.items.list`,
        name: 'List Items',
        description: 'Lists items.',
        inputSchema: z.object({}),
        handler: async () => ({ ok: true }),
      }),
    ],
  }),
);
const gateway = await createGateway({
  plugins: [...plugins, ...realistic, ...late],
  configFile: false,
  // The v1 client spends seconds on a realistic list of 1,000 tools (Ajv compiling each output
  // schema) between two requests: longer than the default keep-alive, which then races them.
  env: { SERVICE_API_SECRET: serviceSecret, GATEWAY_KEEP_ALIVE_TIMEOUT_MS: '120000' },
  authSecret: randomBytes(32).toString('hex'),
  databaseUrl: join(dir, 'gateway.db'),
  host: '127.0.0.1',
  port: 0,
  logSink: { write() {} },
});
const { url } = await gateway.start();

async function api(method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await gateway.fetch(
    new Request(`${url}${path}`, {
      method,
      headers: {
        'content-type': 'application/json',
        origin: url,
        authorization: `Bearer ${serviceSecret}`,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

for (const plugin of [...plugins, ...realistic]) {
  await api('POST', '/api/registry/sources', {
    type: 'plugin',
    id: plugin.id,
    namespace: plugin.id,
    pluginId: plugin.id,
  });
}
const SIZES = {
  1: ['svc0.repos.list'],
  1000: Array.from({ length: 10 }, (_, n) => `svc${n}.**`),
  10000: [
    ...Array.from({ length: 100 }, (_, n) => `svc${n}.**`),
    ...Array.from({ length: 6 }, (_, n) => `late${n}.**`),
  ],
} as const;
/** The realistic shape's one tool and 1,000 tools. */
const REAL_SIZES = {
  1: ['real0.repos.list'],
  1000: Array.from({ length: 10 }, (_, n) => `real${n}.**`),
} as const;
type Size = keyof typeof SIZES;
const sizes = [1, 1000, 10000] as const;
const listed = [1, 1000] as const;
type Listed = (typeof listed)[number];

/** A user whose role allows the tools `patterns` match, with a tools and a discovery endpoint. */
async function userWith(name: string, patterns: readonly string[]) {
  await api('POST', '/api/policy/roles', { id: name, name, patterns });
  const signedUp = (await api('POST', '/api/auth/sign-up/email', {
    name: `Bench ${name}`,
    email: `${name}@example.test`,
    password: randomBytes(16).toString('hex'),
  })) as { user: { id: string } };
  const userId = signedUp.user.id;
  await api('PUT', `/api/policy/users/${userId}/role`, { roleId: name });
  const tools = (await api('POST', '/api/connections/mcp-endpoints', {
    userId,
    name: 'tools',
  })) as { token: string };
  const discovery = (await api('POST', '/api/connections/mcp-endpoints', {
    userId,
    name: 'discovery',
    mode: 'discovery',
  })) as { token: string };
  return { tools: tools.token, discovery: discovery.token };
}

const users = {} as Record<Size, { tools: string; discovery: string }>;
const realUsers = {} as Record<Listed, { tools: string; discovery: string }>;
// The first user to sign up is an admin: a throwaway one takes that role.
await api('POST', '/api/auth/sign-up/email', {
  name: 'First',
  email: 'first@example.test',
  password: randomBytes(16).toString('hex'),
});
for (const size of sizes) users[size] = await userWith(`tools${size}`, SIZES[size]);
for (const size of listed) realUsers[size] = await userWith(`real${size}`, REAL_SIZES[size]);

// The searches first, in a fresh heap: the realistic lists leave the v1 clients' compiled
// validators to collect.
process.stderr.write('gateway.search_tools...\n');

// gateway.search_tools, server time: 2026-07-28 calls handed to the Gateway in-process.
function call(token: string, name: string, args: Record<string, unknown>): Request {
  return new Request(`${url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'mcp-method': 'tools/call',
      'mcp-name': name,
      'mcp-protocol-version': '2026-07-28',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name,
        arguments: args,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  });
}

/** CPU time (user + system) of this process for each call, in ms, beside the wall times. */
const cpuTimes = new Map<number[], number[]>();

async function timed(make: (n: number) => Request, count: number): Promise<number[]> {
  const times: number[] = [];
  const cpu: number[] = [];
  cpuTimes.set(times, cpu);
  for (let n = 0; n < count; n++) {
    const request = make(n);
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const response = await gateway.fetch(request);
    // The answer's last byte, not decoded: decoding is the client's work.
    const body = new Uint8Array(await response.arrayBuffer());
    times.push(performance.now() - started);
    const used = process.cpuUsage(cpuBefore);
    cpu.push((used.user + used.system) / 1000);
    // Checked after timing: the answer (the start of a long list), and any tool error in it.
    const text = new TextDecoder().decode(body.subarray(0, 65_536));
    if (!response.ok || !text.includes('"result"') || text.includes('"isError":true')) {
      throw new Error(`unexpected answer ${response.status} ${text.slice(0, 300)}`);
    }
  }
  return times;
}

const search = (size: Size) => (n: number) =>
  call(users[size].discovery, 'gateway.search_tools', {
    query: QUERIES[n % QUERIES.length],
    limit: 10,
  });
const plain = (n: number) => call(users[1].tools, 'svc0.repos.list', { limit: n % 10 });

const searchTimes = {} as Record<Size, number[]>;
const searchCpu = {} as Record<Size, number[]>;
let baseline: number[] = [];
let baselineCpu: number[] = [];
// Warm-up (the first search of an endpoint builds its index), then alternating measurement.
for (const size of sizes) await timed(search(size), 200);
await timed(plain, 200);
for (const size of sizes) {
  searchTimes[size] = [];
  searchCpu[size] = [];
}
const chunk = Math.max(1, Math.floor(SEARCHES / 5));
for (let done = 0; done < SEARCHES; done += chunk) {
  const plainTimes = await timed(plain, chunk);
  baseline = baseline.concat(plainTimes);
  baselineCpu = baselineCpu.concat(cpuTimes.get(plainTimes) ?? []);
  for (const size of sizes) {
    const times = await timed(search(size), chunk);
    searchTimes[size] = searchTimes[size].concat(times);
    searchCpu[size] = searchCpu[size].concat(cpuTimes.get(times) ?? []);
  }
}

/** Waits until this process is idle (under 5 ms of CPU in 250 ms): background work is done. */
async function untilIdle(): Promise<void> {
  for (let waited = 0; waited < 60_000; waited += 250) {
    const before = process.cpuUsage();
    await new Promise((resolve) => setTimeout(resolve, 250));
    const used = process.cpuUsage(before);
    if (used.user + used.system < 5000) return;
  }
}

// The first search after a catalog change (a plugin registered): at once, its index is built in
// the call; once the change settled, it was built in the background (issue 33).
const firstSearch = { atOnce: [] as number[], settled: [] as number[] };
for (const [n, plugin] of late.entries()) {
  await api('POST', '/api/registry/sources', {
    type: 'plugin',
    id: plugin.id,
    namespace: plugin.id,
    pluginId: plugin.id,
  });
  const settled = n % 2 === 1;
  if (settled) await untilIdle();
  const times = await timed(search(10000), 1);
  (settled ? firstSearch.settled : firstSearch.atOnce).push(cpuTimes.get(times)?.[0] ?? 0);
}

// tools/list through the SDK v1 client.
async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}
/** The lists measured: each shape's one-tool and 1,000-tool user, one v1 client each. */
const cases = (['plain', 'real'] as const).flatMap((shape) =>
  listed.map((size) => ({ shape, size, key: `${shape}${size}` })),
);
const clients = new Map<string, Client>();
/** Bytes of each case's `tools` array as a client receives it. */
const listedBytes = new Map<string, number>();
process.stderr.write('tools/list...\n');
for (const { shape, size, key } of cases) {
  const client = await connect((shape === 'plain' ? users : realUsers)[size].tools);
  clients.set(key, client);
  const { tools } = await client.listTools();
  if (tools.length !== size) throw new Error(`${key} lists ${tools.length} tools`);
  listedBytes.set(key, Buffer.byteLength(JSON.stringify(tools)));
  for (let i = 0; i < (shape === 'plain' ? 5 : 1); i++) await client.listTools();
}
/** Wall time and CPU time (user + system: the client's and the server's work) per list. */
const perList = new Map<string, number[]>(cases.map(({ key }) => [key, []]));
const cpuPerList = new Map<string, number[]>(cases.map(({ key }) => [key, []]));
for (let round = 0; round < LIST_ROUNDS; round++) {
  const order = round % 2 === 0 ? cases : [...cases].reverse();
  for (const { shape, key } of order) {
    const client = clients.get(key) as Client;
    const lists = shape === 'plain' ? LISTS : REAL_LISTS;
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    for (let i = 0; i < lists; i++) await client.listTools();
    perList.get(key)?.push((performance.now() - started) / lists);
    const used = process.cpuUsage(cpuBefore);
    cpuPerList.get(key)?.push((used.user + used.system) / 1000 / lists);
  }
}
for (const client of clients.values()) await client.close();
// tools/list server time alone: a session's `tools/list` handed to the Gateway in-process, as
// the client sends it (a session opened in-process for each case), and the answer's bytes for
// the client's own parse, timed alone below.
function post(token: string, body: unknown, sessionId?: string): Request {
  return new Request(`${url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'mcp-protocol-version': '2025-11-25',
      ...(sessionId === undefined ? {} : { 'mcp-session-id': sessionId }),
    },
    body: JSON.stringify(body),
  });
}
const serverList = new Map<string, number>();
const serverListCpu = new Map<string, number>();
const answers = new Map<string, Uint8Array>();
for (const { shape, size, key } of cases) {
  const token = (shape === 'plain' ? users : realUsers)[size].tools;
  const opened = await gateway.fetch(
    post(token, {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'bench', version: '1.0.0' },
      },
    }),
  );
  const sessionId = opened.headers.get('mcp-session-id') ?? undefined;
  await opened.text();
  if (sessionId === undefined) throw new Error('no session opened');
  await (
    await gateway.fetch(
      post(token, { jsonrpc: '2.0', method: 'notifications/initialized' }, sessionId),
    )
  ).text();
  const list = () => post(token, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, sessionId);
  await timed(list, 10);
  const times = await timed(list, shape === 'plain' ? LISTS * 2 : LISTS);
  serverList.set(key, median(times));
  serverListCpu.set(key, median(cpuTimes.get(times) ?? []));
  answers.set(key, new Uint8Array(await (await gateway.fetch(list())).arrayBuffer()));
}

await gateway.stop();
rmSync(dir, { recursive: true, force: true });

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? 0;
}
function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
}
const ms = (value: number) => value.toFixed(3).padStart(8);

/**
 * What the SDK v1 client does with a `tools/list` answer once it has its bytes, as it does it: the
 * body decoded and parsed (`response.json()`), the message checked by `JSONRPCMessageSchema`, the
 * result by `ListToolsResultSchema` (zod), and a validator compiled for each tool's
 * `outputSchema` (`cacheToolMetadata`, with the client's default Ajv validator).
 */
const validator = new AjvJsonSchemaValidator();
function clientParse(bytes: Uint8Array): void {
  const message = JSONRPCMessageSchema.parse(JSON.parse(new TextDecoder().decode(bytes)));
  const { tools } = ListToolsResultSchema.parse((message as { result?: unknown }).result);
  for (const tool of tools) if (tool.outputSchema) validator.getValidator(tool.outputSchema);
}
const clientCpu = new Map<string, number>();
for (const { shape, key } of cases) {
  const bytes = answers.get(key) as Uint8Array;
  const samples: number[] = [];
  for (let round = 0; round < (shape === 'plain' ? LISTS : REAL_LISTS + 5); round++) {
    const cpuBefore = process.cpuUsage();
    clientParse(bytes);
    const used = process.cpuUsage(cpuBefore);
    samples.push((used.user + used.system) / 1000);
  }
  clientCpu.set(key, median(samples.slice(5)));
}

const at = (map: Map<string, number[]>, key: string) => median(map.get(key) ?? []);
console.log(
  '\ntools/list through the MCP SDK v1 client (2025 session, real HTTP), median of rounds, ms:',
);
console.log(
  'shape   tools     bytes   wall/list  ÷1 tool   CPU/list  ÷1 tool | server CPU  client parse CPU',
);
const ratios = new Map<string, { wall: number; cpu: number }>();
for (const { shape, size, key } of cases) {
  const one = `${shape}1`;
  const wall = at(perList, key) / at(perList, one);
  const cpu = at(cpuPerList, key) / at(cpuPerList, one);
  ratios.set(key, { wall, cpu });
  console.log(
    `${shape.padEnd(5)} ${String(size).padStart(6)} ${String(listedBytes.get(key)).padStart(9)}  ${ms(at(perList, key))}  ${wall.toFixed(2).padStart(7)}  ${ms(at(cpuPerList, key))}  ${cpu.toFixed(2).padStart(7)} |  ${ms(serverListCpu.get(key) ?? 0)}  ${ms(clientCpu.get(key) ?? 0)}`,
  );
}
console.log(
  "(CPU/list: this process, client and server; server CPU: a session's tools/list handed to the",
);
console.log(
  " Gateway in-process, no client; client parse CPU: the v1 client's own work on the answer's bytes)",
);
const listRatio = ratios.get('plain1000')?.wall ?? 0;
const cpuRatio = ratios.get('plain1000')?.cpu ?? 0;
const realRatio = ratios.get('real1000') ?? { wall: 0, cpu: 0 };
console.log(
  `first search at 10,000 tools after a plugin is registered, CPU ms (median of 3): at once ${ms(median(firstSearch.atOnce))} (its index built in the call), once the process is idle ${ms(median(firstSearch.settled))} (built in the background)`,
);
console.log('\ngateway.search_tools, server time (in-process, no socket), ms: wall | CPU');
console.log('                          p50       p99  |     p50       p99');
const row = (label: string, wall: number[], cpu: number[]) =>
  console.log(
    `${label}  ${ms(quantile(wall, 0.5))}  ${ms(quantile(wall, 0.99))}  | ${ms(quantile(cpu, 0.5))}  ${ms(quantile(cpu, 0.99))}`,
  );
row('baseline tools/call ', baseline, baselineCpu);
for (const size of sizes) {
  row(`search, ${String(size).padStart(5)} tools`, searchTimes[size], searchCpu[size]);
}
console.log('(baseline: a plain tools/call of a one-tool endpoint, measured in the same rounds)');
const searchP99 = quantile(searchTimes[10000], 0.99);
const searchCpuP99 = quantile(searchCpu[10000], 0.99);
console.log(
  `\ntarget "tools/list of 1,000 tools ÷ 1 tool <= ${LIST_TARGET}": wall ${listRatio <= LIST_TARGET ? 'MET' : 'NOT MET'} (${listRatio.toFixed(2)}), CPU ${cpuRatio <= LIST_TARGET ? 'MET' : 'NOT MET'} (${cpuRatio.toFixed(2)}); the realistic shape: wall ${realRatio.wall.toFixed(2)}, CPU ${realRatio.cpu.toFixed(2)}`,
);
console.log(
  `target "gateway.search_tools p99 <= ${SEARCH_TARGET_MS} ms server time at 10,000 tools": wall ${searchP99 <= SEARCH_TARGET_MS ? 'MET' : 'NOT MET'} (${searchP99.toFixed(3)} ms), CPU ${searchCpuP99 <= SEARCH_TARGET_MS ? 'MET' : 'NOT MET'} (${searchCpuP99.toFixed(3)} ms)`,
);
console.log(
  `load average at the end (1, 5, 15 min): ${loadavg()
    .map((value) => value.toFixed(1))
    .join(', ')} on ${availableParallelism()} CPUs`,
);
