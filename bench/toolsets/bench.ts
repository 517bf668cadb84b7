/**
 * Toolsets benchmark (issue 33): a Gateway serving a many-tools plugin set (100 plugins × 100
 * tools = 10,000) to users whose roles allow 1, 1,000 and 10,000 of them.
 *
 * - `tools/list` through the MCP SDK v1 client (a 2025 session over real HTTP on 127.0.0.1), at 1
 *   and 1,000 tools: median time per list in alternating rounds, and the 1,000 ÷ 1 ratio
 *   (target <= 3).
 * - `gateway.search_tools` on discovery endpoints, server time: a 2026-07-28 `tools/call` handed to
 *   the Gateway in-process (`gateway.fetch`, no socket and no client), its whole handling timed
 *   (authentication, policy, the search, the answer's encoding), at 1, 1,000 and 10,000 tools,
 *   with a plain `tools/call` of a one-tool endpoint as the baseline in the same run (target: p99
 *   <= 5 ms at 10,000 tools).
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
import { z } from 'zod';

const LIST_ROUNDS = Number(process.env.BENCH_LIST_ROUNDS ?? 5);
const LISTS = Number(process.env.BENCH_LISTS ?? 40);
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

function capital(word: string): string {
  return `${word.charAt(0).toUpperCase()}${word.slice(1)}`;
}

const dir = mkdtempSync(join(tmpdir(), 'gateway-bench-toolsets-'));
const serviceSecret = randomBytes(24).toString('hex');
const plugins = manyTools();
const gateway = await createGateway({
  plugins,
  configFile: false,
  env: { SERVICE_API_SECRET: serviceSecret },
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

for (const plugin of plugins) {
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
  10000: ['**'],
} as const;
type Size = keyof typeof SIZES;
const sizes = [1, 1000, 10000] as const;

/** A user whose role allows `size` tools, with a tools endpoint and a discovery endpoint. */
async function userWith(size: Size) {
  await api('POST', '/api/policy/roles', {
    id: `tools${size}`,
    name: `Tools ${size}`,
    patterns: SIZES[size],
  });
  const signedUp = (await api('POST', '/api/auth/sign-up/email', {
    name: `Bench ${size}`,
    email: `bench${size}@example.test`,
    password: randomBytes(16).toString('hex'),
  })) as { user: { id: string } };
  const userId = signedUp.user.id;
  await api('PUT', `/api/policy/users/${userId}/role`, { roleId: `tools${size}` });
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
// The first user to sign up is an admin: a throwaway one takes that role.
await api('POST', '/api/auth/sign-up/email', {
  name: 'First',
  email: 'first@example.test',
  password: randomBytes(16).toString('hex'),
});
for (const size of sizes) users[size] = await userWith(size);

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
const listed = [1, 1000] as const;
const clients = {} as Record<Size, Client>;
process.stderr.write('tools/list...\n');
for (const size of listed) {
  clients[size] = await connect(users[size].tools);
  const { tools } = await clients[size].listTools();
  if (tools.length !== size) throw new Error(`user with ${size} tools lists ${tools.length}`);
  for (let i = 0; i < 5; i++) await clients[size].listTools();
}
const perList: Record<Size, number[]> = { 1: [], 1000: [], 10000: [] };
/** CPU time (user + system) of this process per list: the client's and the server's work. */
const cpuPerList: Record<Size, number[]> = { 1: [], 1000: [], 10000: [] };
for (let round = 0; round < LIST_ROUNDS; round++) {
  const order = round % 2 === 0 ? listed : [...listed].reverse();
  for (const size of order) {
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    for (let i = 0; i < LISTS; i++) await clients[size].listTools();
    perList[size].push((performance.now() - started) / LISTS);
    const used = process.cpuUsage(cpuBefore);
    cpuPerList[size].push((used.user + used.system) / 1000 / LISTS);
  }
}
for (const size of listed) await clients[size].close();
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

// tools/list server time alone: a session's `tools/list` handed to the Gateway in-process, as
// the client sends it (a session opened in-process for each size).
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
const serverList = {} as Record<Size, number>;
const serverListCpu = {} as Record<Size, number>;
for (const size of listed) {
  const token = users[size].tools;
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
  const times = await timed(list, LISTS * 2);
  serverList[size] = median(times);
  serverListCpu[size] = median(cpuTimes.get(times) ?? []);
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

console.log(
  '\ntools/list through the MCP SDK v1 client (2025 session, real HTTP), median of rounds:',
);
console.log('   tools   ms/list   ÷ 1 tool');
for (const size of listed) {
  console.log(
    `${String(size).padStart(8)}  ${ms(median(perList[size]))}   ${(median(perList[size]) / median(perList[1])).toFixed(2).padStart(6)}`,
  );
}
const listRatio = median(perList[1000]) / median(perList[1]);
const cpuRatio = median(cpuPerList[1000]) / median(cpuPerList[1]);
console.log(
  `CPU time per list (client and server, one process): ${ms(median(cpuPerList[1]))} ms at 1 tool, ${ms(median(cpuPerList[1000]))} ms at 1,000 (÷ ${cpuRatio.toFixed(2)})`,
);
console.log(
  `server time alone (a session's tools/list in-process, no client), wall | CPU: ${ms(serverList[1])} | ${ms(serverListCpu[1])} ms at 1 tool, ${ms(serverList[1000])} | ${ms(serverListCpu[1000])} ms at 1,000`,
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
  `\ntarget "tools/list of 1,000 tools ÷ 1 tool <= ${LIST_TARGET}": wall ${listRatio <= LIST_TARGET ? 'MET' : 'NOT MET'} (${listRatio.toFixed(2)}), CPU ${cpuRatio <= LIST_TARGET ? 'MET' : 'NOT MET'} (${cpuRatio.toFixed(2)})`,
);
console.log(
  `target "gateway.search_tools p99 <= ${SEARCH_TARGET_MS} ms server time at 10,000 tools": wall ${searchP99 <= SEARCH_TARGET_MS ? 'MET' : 'NOT MET'} (${searchP99.toFixed(3)} ms), CPU ${searchCpuP99 <= SEARCH_TARGET_MS ? 'MET' : 'NOT MET'} (${searchCpuP99.toFixed(3)} ms)`,
);
console.log(
  `load average at the end (1, 5, 15 min): ${loadavg()
    .map((value) => value.toFixed(1))
    .join(', ')} on ${availableParallelism()} CPUs`,
);
