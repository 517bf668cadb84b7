/**
 * Server-side policy resolve benchmark: `PolicyService.resolveForUser()` over a `PluginCatalog`
 * of 10,000 mounted tools, for roles of 1, 10, 100 and 1,000 patterns, both uncached (the cache
 * is cleared before every call, so each call reads the role, compiles its patterns and filters
 * the catalog) and cached (the steady state: one role read, then the cached list). A naive loop
 * over per-pattern regexes is measured beside it, in the same run, on the same tools.
 *
 * A third column measures the case between the two: the catalog just changed (a registration),
 * so the role's tool list is rebuilt with its already compiled matcher.
 *
 * Every resolve includes the one SQLite query that reads the user's role (in-memory database).
 *
 * Run from the repository root: `pnpm exec tsx bench/policy/server-resolve.ts`
 */
import { fileURLToPath } from 'node:url';
import { tsImport } from 'tsx/esm/api';
import { z } from 'zod';
import type { Plugin } from './server-modules.js';

// The server resolves `@gateway/sdk` through the workspace tsconfig's `paths` (see
// server-modules.ts), which tsx applies only when told to.
const modules = (await tsImport('./server-modules.ts', {
  parentURL: import.meta.url,
  tsconfig: fileURLToPath(new URL('../../tsconfig.base.json', import.meta.url)),
})) as typeof import('./server-modules.js');
const { createTestDatabase, definePlugin, defineTool, PluginCatalog, PolicyService } = modules;

const SEED = 0x5eed;
const PLUGINS = 100;
const ROLE_SIZES = [1, 10, 100, 1000] as const;
const TARGET_MS = 2;
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
const SUBGROUPS = ['admin', 'bulk', 'v2'];

/** mulberry32: deterministic, so every run measures the same data. */
function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

/** 100 plugins x 10 groups x 10 actions; about a third of the groups nest one level deeper. */
function generatePlugins(random: () => number): Plugin[] {
  // One tiny schema for all: the benchmark is about policy, not JSON Schema generation.
  const inputSchema = z.object({});
  const plugins: Plugin[] = [];
  for (let index = 0; index < PLUGINS; index++) {
    const id = `svc${index}`;
    const tools = GROUPS.flatMap((group) => {
      const prefix =
        random() < 0.3 ? `${id}.${group}.${pick(random, SUBGROUPS)}` : `${id}.${group}`;
      return ACTIONS.map((action) =>
        defineTool({
          path: JSON.parse(JSON.stringify(`${prefix}.${action}`)) as string,
          name: `Tool ${action.charAt(0).toUpperCase()}${action.slice(1)}`,
          description: 'A generated tool.',
          inputSchema,
          handler: async () => ({}),
        }),
      );
    });
    plugins.push(definePlugin({ id, name: `Service ${index}`, description: 'Generated.', tools }));
  }
  return plugins;
}

/** A mix an administrator might write: mostly literals and namespace or group wildcards. */
function generatePatterns(random: () => number, count: number, paths: readonly string[]): string[] {
  const patterns: string[] = [];
  while (patterns.length < count) {
    const ns = `svc${Math.floor(random() * PLUGINS)}`;
    const group = pick(random, GROUPS);
    const action = pick(random, ACTIONS);
    const roll = random();
    if (roll < 0.4) patterns.push(pick(random, paths));
    else if (roll < 0.5) patterns.push(`${ns}.${group}.purge`);
    else if (roll < 0.7) patterns.push(`${ns}.${group}.*`);
    else if (roll < 0.85) patterns.push(`${ns}.**`);
    else if (roll < 0.95) patterns.push(`${ns}.**.${action}`);
    else patterns.push(`*.${group}.**.${action}`);
  }
  return patterns;
}

/** The naive approach: one regex per pattern (compiled per resolve), tried in turn per tool. */
function naiveResolve(patterns: readonly string[], paths: readonly string[]): string[] {
  const regexes = patterns.map((pattern) => {
    const body = pattern
      .split('.')
      .map((segment) =>
        segment === '**'
          ? '[a-z0-9_-]+(\\.[a-z0-9_-]+)*'
          : segment === '*'
            ? '[a-z0-9_-]+'
            : segment,
      )
      .join('\\.');
    return new RegExp(`^${body}$`);
  });
  return paths.filter((path) => regexes.some((regex) => regex.test(path)));
}

let sink = 0;
const median = (samples: number[]) => samples.sort((a, b) => a - b)[samples.length >> 1]!;

/**
 * Median ms per call after a warm-up; stops once `budgetMs` is spent (at least `minReps`).
 * `prepare` runs before each call, untimed.
 */
async function measure(
  run: () => Promise<number> | number,
  budgetMs: number,
  minReps = 5,
  maxReps = 500,
  prepare: () => void = () => {},
) {
  for (let i = 0; i < 3; i++) {
    prepare();
    sink += await run();
  }
  const samples: number[] = [];
  const started = performance.now();
  while (
    samples.length < maxReps &&
    (samples.length < minReps || performance.now() - started < budgetMs)
  ) {
    prepare();
    const before = performance.now();
    sink += await run();
    samples.push(performance.now() - before);
  }
  return median(samples);
}

const format = (ms: number) => (ms < 10 ? ms.toFixed(3) : ms.toFixed(1));

async function main(): Promise<void> {
  const random = createRandom(SEED);
  const setupStarted = performance.now();
  const plugins = generatePlugins(random);
  const catalog = new PluginCatalog(plugins);
  for (const plugin of plugins)
    catalog.mount({ id: plugin.id, namespace: plugin.id, pluginId: plugin.id });
  const mountMs = performance.now() - setupStarted;
  const paths = catalog.tools().map((tool) => tool.path);

  const database = await createTestDatabase();
  const policy = new PolicyService({ database, plugins: catalog, defaultRoleId: 'member' });
  const now = new Date().toISOString();
  const roles = [];
  for (const size of ROLE_SIZES) {
    const patterns = generatePatterns(random, size, paths);
    const roleId = `role${size}`;
    await policy.createRole({ id: roleId, name: `Role ${size}`, patterns });
    const userId = `user${size}`;
    await database.db
      .insertInto('user')
      .values({
        id: userId,
        name: userId,
        email: `${userId}@bench.test`,
        emailVerified: true,
        image: null,
        createdAt: now,
        updatedAt: now,
      })
      .execute();
    await policy.assignRole(userId, roleId);
    roles.push({ size, patterns, userId });
  }
  console.log(
    `server policy resolve: ${catalog.tools().length} tools in ${plugins.length} plugins (mounted in ${mountMs.toFixed(0)} ms), Node ${process.version}\n`,
  );

  // A one-tool plugin mounted and unmounted in turn bumps the catalog version: every role's tool
  // list is then stale, while its compiled matcher stays valid.
  const extra = definePlugin({
    id: 'extra',
    name: 'Extra',
    description: 'Toggled to change the catalog.',
    tools: [
      defineTool({
        path: 'extra.tool.get',
        name: 'Get',
        description: 'x',
        inputSchema: z.object({}),
        handler: async () => ({}),
      }),
    ],
  });
  catalog.load(extra);
  const toggleCatalog = () => {
    if (!catalog.unmount('extra'))
      catalog.mount({ id: 'extra', namespace: 'extra', pluginId: 'extra' });
  };

  const header = [
    'patterns',
    'allowed',
    'uncached ms',
    'catalog changed ms',
    'cached ms',
    'naive regex ms',
    'naive/uncached',
  ];
  const rows: string[][] = [];
  let identical = true;
  let largestUncached = 0;
  let largestCached = 0;
  for (const role of roles) {
    const resolved = (await policy.resolveForUser(role.userId)).tools.map((tool) => tool.path);
    const naive = naiveResolve(role.patterns, paths);
    if (resolved.length !== naive.length || resolved.some((path, i) => path !== naive[i])) {
      identical = false;
      console.error(
        `MISMATCH at ${role.size} patterns: ${resolved.length} vs naive ${naive.length}`,
      );
    }
    const uncached = await measure(async () => {
      policy.clearCache();
      return (await policy.resolveForUser(role.userId)).tools.length;
    }, 1500);
    const afterChange = await measure(
      async () => (await policy.resolveForUser(role.userId)).tools.length,
      1000,
      5,
      500,
      toggleCatalog,
    );
    const cached = await measure(
      async () => (await policy.resolveForUser(role.userId)).tools.length,
      1000,
      20,
      2000,
    );
    // About half a second per call at 1,000 patterns: a few repetitions are enough.
    const naiveMs = await measure(() => naiveResolve(role.patterns, paths).length, 2000, 3, 31);
    rows.push([
      String(role.size),
      String(resolved.length),
      format(uncached),
      format(afterChange),
      format(cached),
      format(naiveMs),
      `${(naiveMs / uncached).toFixed(1)}x`,
    ]);
    largestUncached = uncached;
    largestCached = cached;
  }

  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]!.length)),
  );
  const line = (cells: string[]) =>
    cells.map((cell, column) => cell.padStart(widths[column]!)).join('  ');
  console.log(line(header));
  for (const row of rows) console.log(line(row));
  console.log(
    `\nresults identical to the naive loop: ${identical ? 'yes' : 'NO'}` +
      `\ntarget "<= ${TARGET_MS} ms per resolve at 10k tools x 1k patterns": ` +
      `uncached ${largestUncached <= TARGET_MS ? 'MET' : 'NOT MET'} (${format(largestUncached)} ms), ` +
      `cached ${largestCached <= TARGET_MS ? 'MET' : 'NOT MET'} (${format(largestCached)} ms)`,
  );
  if (sink < 0) console.log(sink);
  await database.close();
  if (!identical) process.exitCode = 1;
}

await main();
