/**
 * Web pages benchmark (issue 38, "the page stays fast with 1,000 tools"): the server time of the
 * Tools tab as rendered HTML (`GET /tools`, with and without a search `?q=`) for a user whose role
 * gives 1 tool and one whose role gives 1,000, and of Admin → Sources and the overview, each
 * printed beside the 1-tool page measured in the same run. The request is handed to the Gateway
 * in process (`gateway.fetch`, no socket): authentication, the page's API reads and the HTML.
 * Wall and CPU time per page, median of runs.
 *
 * Run from the repository root: `pnpm bench web-pages`.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { definePlugin, defineTool } from '../../packages/sdk/src/index.js';
import { createGateway } from '../../packages/server/src/index.js';

const TARGET_MS = 200;
const RUNS = 15;
const TOOLS = 1000;

/** 1,000 tools in 10 groups, named and described like real ones. */
function bulkPlugin() {
  return definePlugin({
    id: 'bulk',
    name: 'Bulk',
    description: 'A thousand tools.',
    tools: Array.from({ length: TOOLS }, (_, i) =>
      defineTool({
        path: `bulk.group${i % 10}.tool_${String(i).padStart(4, '0')}`,
        name: `Tool ${i}`,
        description: `Does thing number ${i} to a record of group ${i % 10}.`,
        inputSchema: z.object({ id: z.string().describe('The record') }),
        handler: async (_ctx, { id }) => ({ id }),
      }),
    ),
  });
}

const dir = await mkdtemp(join(tmpdir(), 'gateway-bench-web-pages-'));
const serviceSecret = randomBytes(24).toString('hex');
const gateway = await createGateway({
  plugins: [bulkPlugin()],
  configFile: false,
  env: { SERVICE_API_SECRET: serviceSecret },
  authSecret: randomBytes(32).toString('hex'),
  databaseUrl: join(dir, 'gateway.db'),
  baseUrl: 'http://127.0.0.1:8787',
  logSink: { write() {} },
});
const base = 'http://127.0.0.1:8787';

async function api(method: string, path: string, body?: unknown): Promise<Response> {
  const response = await gateway.fetch(
    new Request(`${base}${path}`, {
      method,
      headers: {
        'content-type': 'application/json',
        origin: base,
        authorization: `Bearer ${serviceSecret}`,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response;
}

/** Signs a user up and returns their session cookie (and id). */
async function signUp(name: string): Promise<{ cookie: string; id: string }> {
  const response = await api('POST', '/api/auth/sign-up/email', {
    name,
    email: `${name.toLowerCase()}@example.test`,
    password: randomBytes(16).toString('hex'),
  });
  const cookie = response.headers
    .getSetCookie()
    .map((line) => line.split(';')[0])
    .join('; ');
  const { user } = (await response.json()) as { user: { id: string } };
  return { cookie, id: user.id };
}

await api('POST', '/api/registry/sources', {
  type: 'plugin',
  id: 'bulk',
  namespace: 'bulk',
  pluginId: 'bulk',
});
// The first user to sign up is the admin, whose role gives every tool.
const admin = await signUp('Admin');
const people: Record<'one' | 'thousand', { cookie: string; id: string }> = {
  one: await signUp('One'),
  thousand: await signUp('Thousand'),
};
for (const [size, patterns] of [
  ['one', ['bulk.group0.tool_0000']],
  ['thousand', ['bulk.**']],
] as const) {
  await api('POST', '/api/policy/roles', { id: size, name: size, patterns });
  await api('PUT', `/api/policy/users/${people[size].id}/role`, { roleId: size });
}

async function page(cookie: string, path: string): Promise<string> {
  const response = await gateway.fetch(new Request(`${base}${path}`, { headers: { cookie } }));
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${path}: ${response.status}`);
  return text;
}

interface Timing {
  wallMs: number;
  cpuMs: number;
}

async function time(cookie: string, path: string): Promise<Timing> {
  await page(cookie, path);
  const walls: number[] = [];
  const cpu: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const before = process.cpuUsage();
    const start = performance.now();
    await page(cookie, path);
    walls.push(performance.now() - start);
    const used = process.cpuUsage(before);
    cpu.push((used.user + used.system) / 1000);
  }
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  return { wallMs: median(walls), cpuMs: median(cpu) };
}

const rows = (html: string) => html.match(/<li[^>]* data-tool="/g)?.length ?? 0;
if (rows(await page(people.thousand.cookie, '/tools')) !== TOOLS) {
  throw new Error('the 1,000-tool page does not show 1,000 tools');
}
const cases: { name: string; cookie: string; path: string }[] = [
  { name: 'Tools tab, 1 tool (baseline)', cookie: people.one.cookie, path: '/tools' },
  { name: 'Tools tab, 1,000 tools', cookie: people.thousand.cookie, path: '/tools' },
  {
    name: 'Tools tab, 1,000 tools, ?q= (10 match)',
    cookie: people.thousand.cookie,
    path: '/tools?q=tool_099',
  },
  { name: 'Admin → Sources, 1,000 tools', cookie: admin.cookie, path: '/admin/sources' },
  { name: 'Admin → Overview', cookie: admin.cookie, path: '/admin' },
];
console.log(
  `${'page'.padEnd(42)} ${'wall ms'.padStart(8)} ${'CPU ms'.padStart(8)} ${'÷ 1 tool'.padStart(9)}  verdict`,
);
let ok = true;
let baseline: Timing | undefined;
for (const item of cases) {
  const timing = await time(item.cookie, item.path);
  baseline ??= timing;
  const pass = timing.wallMs < TARGET_MS || timing.cpuMs < TARGET_MS;
  ok &&= pass;
  console.log(
    `${item.name.padEnd(42)} ${timing.wallMs.toFixed(1).padStart(8)} ${timing.cpuMs.toFixed(1).padStart(8)} ${(timing.cpuMs / baseline.cpuMs).toFixed(1).padStart(9)}  ${pass ? 'ok' : `over ${TARGET_MS} ms`}`,
  );
}
console.log(
  `\nTarget: every page under ${TARGET_MS} ms of server time (median of ${RUNS}; wall, or the CPU time when the machine is loaded). Load: ${loadavg()
    .map((value) => value.toFixed(1))
    .join(' ')} on ${cpus().length} CPUs.`,
);
await gateway.stop();
await rm(dir, { recursive: true, force: true });
process.exit(ok ? 0 : 1);
