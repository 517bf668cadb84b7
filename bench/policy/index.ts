/**
 * Policy resolution benchmark: how long it takes to decide which of 10,000 tools a role of 1, 10,
 * 100 or 1,000 patterns allows, with `compilePatterns()` and with a naive loop over per-pattern
 * regexes, measured in the same run on the same data.
 *
 * Run from the repository root: `pnpm exec tsx bench/policy/index.ts`
 */
import { compilePatterns } from '../../packages/sdk/src/policy/index.js';

interface ToolEntry {
  path: string;
}

const SEED = 0x5eed;
const ROLE_SIZES = [1, 10, 100, 1000] as const;
const TARGET_MS = 2;
const FLAT_RATIO = 2;

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

/** mulberry32: small, fast and deterministic, so every run measures the same data. */
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

/** 100 namespaces x 10 groups x 10 actions; about a third of the groups nest one level deeper. */
function generateTools(random: () => number): ToolEntry[] {
  const tools: ToolEntry[] = [];
  for (let ns = 0; ns < 100; ns++) {
    for (const group of GROUPS) {
      const prefix =
        random() < 0.3 ? `svc${ns}.${group}.${pick(random, SUBGROUPS)}` : `svc${ns}.${group}`;
      for (const action of ACTIONS) tools.push({ path: `${prefix}.${action}` });
    }
  }
  // Real tool paths arrive as string literals or parsed JSON, i.e. flat strings. Concatenation
  // makes rope strings, each character read of which costs an extra indirection.
  return JSON.parse(JSON.stringify(tools)) as ToolEntry[];
}

/** A mix an administrator might write: mostly literals and namespace or group wildcards. */
function generatePatterns(random: () => number, count: number, tools: ToolEntry[]): string[] {
  const patterns: string[] = [];
  while (patterns.length < count) {
    const ns = `svc${Math.floor(random() * 100)}`;
    const group = pick(random, GROUPS);
    const action = pick(random, ACTIONS);
    const roll = random();
    if (roll < 0.4) patterns.push(pick(random, tools).path);
    else if (roll < 0.45) patterns.push(`${ns}.${group}.purge`);
    else if (roll < 0.5) patterns.push(`${ns}.*`);
    else if (roll < 0.7) patterns.push(`${ns}.${group}.*`);
    else if (roll < 0.85) patterns.push(`${ns}.**`);
    else if (roll < 0.9) patterns.push(`${ns}.${group}.*.${action}`);
    else if (roll < 0.95) patterns.push(`${ns}.**.${action}`);
    else patterns.push(`*.${group}.**.${action}`);
  }
  return patterns;
}

/** The approach `compilePatterns()` replaces: one regex per pattern, tried in turn. */
function compileBaseline(patterns: readonly string[]): RegExp[] {
  return patterns.map((pattern) => {
    const body = pattern
      .split('.')
      .map((segment) => {
        if (segment === '**') return '[a-z0-9_]+(\\.[a-z0-9_]+)*';
        if (segment === '*') return '[a-z0-9_]+';
        return segment;
      })
      .join('\\.');
    return new RegExp(`^${body}$`);
  });
}

function filterBaseline(regexes: readonly RegExp[], tools: readonly ToolEntry[]): ToolEntry[] {
  const allowed: ToolEntry[] = [];
  for (const tool of tools) {
    for (const regex of regexes) {
      if (regex.test(tool.path)) {
        allowed.push(tool);
        break;
      }
    }
  }
  return allowed;
}

// Results feed this so the engine cannot drop the measured work as dead code.
let sink = 0;

const median = (samples: number[]) => samples.sort((a, b) => a - b)[samples.length >> 1]!;

/** Median ms per call after `warmup` calls; stops early once `budgetMs` is spent. */
function measure(
  run: () => unknown[],
  options: { warmup: number; minReps: number; maxReps: number; budgetMs: number },
): number {
  for (let i = 0; i < options.warmup; i++) sink += run().length;
  const samples: number[] = [];
  const started = performance.now();
  while (
    samples.length < options.maxReps &&
    (samples.length < options.minReps || performance.now() - started < options.budgetMs)
  ) {
    const before = performance.now();
    sink += run().length;
    samples.push(performance.now() - before);
  }
  return median(samples);
}

/**
 * Median ms per call of each runner, measured in interleaved rounds so that machine noise and
 * JIT tiering hit every role size alike instead of whichever happens to run first.
 */
function measureInterleaved(
  runs: readonly (() => unknown[])[],
  options: { warmup: number; rounds: number; budgetMs: number },
): number[] {
  for (let i = 0; i < options.warmup; i++) for (const run of runs) sink += run().length;
  const samples = runs.map((): number[] => []);
  const started = performance.now();
  for (let round = 0; round < options.rounds; round++) {
    if (round >= 21 && performance.now() - started > options.budgetMs) break;
    for (const [index, run] of runs.entries()) {
      const before = performance.now();
      sink += run().length;
      samples[index]!.push(performance.now() - before);
    }
  }
  return samples.map(median);
}

function sameTools(a: readonly ToolEntry[], b: readonly ToolEntry[]): boolean {
  return a.length === b.length && a.every((tool, index) => tool === b[index]);
}

const format = (ms: number) => (ms < 10 ? ms.toFixed(3) : ms.toFixed(1));

function main(): void {
  const random = createRandom(SEED);
  const tools = generateTools(random);
  const pathOf = (tool: ToolEntry) => tool.path;
  console.log(`policy resolve: ${tools.length} tools, Node ${process.version}\n`);

  const header = [
    'patterns',
    'allowed',
    'compile ms',
    'first resolve ms',
    'compiled ms/resolve',
    'baseline ms/resolve',
    'speedup',
  ];
  const roles = ROLE_SIZES.map((size) => {
    const patterns = generatePatterns(random, size, tools);
    const compileMs = measure(() => [compilePatterns(patterns)], {
      warmup: 5,
      minReps: 5,
      maxReps: 200,
      budgetMs: 1000,
    });
    const matcher = compilePatterns(patterns);
    // The first resolve also builds the automaton's states; later ones only look them up.
    const firstStarted = performance.now();
    const allowed = matcher.filter(tools, pathOf);
    const firstMs = performance.now() - firstStarted;
    return { size, patterns, compileMs, matcher, allowed, firstMs };
  });

  const resolveMs = measureInterleaved(
    roles.map(
      ({ matcher }) =>
        () =>
          matcher.filter(tools, pathOf),
    ),
    { warmup: 20, rounds: 501, budgetMs: 8000 },
  );

  const rows: string[][] = [];
  let allIdentical = true;
  for (const [index, role] of roles.entries()) {
    const regexes = compileBaseline(role.patterns);
    const baseline = filterBaseline(regexes, tools);
    // The baseline takes about half a second per resolve at 1,000 patterns: cap its repetitions.
    const baselineMs = measure(() => filterBaseline(regexes, tools), {
      warmup: 2,
      minReps: 3,
      maxReps: 51,
      budgetMs: 3000,
    });
    if (!sameTools(role.allowed, baseline)) {
      allIdentical = false;
      console.error(
        `MISMATCH at ${role.size} patterns: compiled allows ${role.allowed.length}, baseline ${baseline.length}`,
      );
    }
    const compiledMs = resolveMs[index]!;
    rows.push([
      String(role.size),
      String(role.allowed.length),
      format(role.compileMs),
      format(role.firstMs),
      format(compiledMs),
      format(baselineMs),
      `${(baselineMs / compiledMs).toFixed(1)}x`,
    ]);
  }

  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]!.length)),
  );
  const line = (cells: string[]) =>
    cells.map((cell, column) => cell.padStart(widths[column]!)).join('  ');
  console.log(line(header));
  for (const row of rows) console.log(line(row));

  // The 1-pattern role rejects most paths within a few characters, so it reads far fewer
  // characters than the larger roles; flatness compares the 10- and 1,000-pattern roles, which
  // read about as much, and the 1-pattern ratio is printed beside it.
  const largest = resolveMs.at(-1)!;
  const ratio = largest / resolveMs[1]!;
  const fastEnough = largest <= TARGET_MS;
  const flat = ratio <= FLAT_RATIO;
  console.log(
    `\nresults identical to baseline: ${allIdentical ? 'yes' : 'NO'}` +
      `\ntarget "<= ${TARGET_MS} ms per resolve at 10k tools x 1k patterns, flat in the number of patterns": ` +
      `${fastEnough && flat ? 'MET' : 'NOT MET'} ` +
      `(${format(largest)} ms at 1k patterns, ${ratio.toFixed(2)}x the 10-pattern time; flat means <= ${FLAT_RATIO}x)`,
  );
  console.log(`1k-pattern time / 1-pattern time: ${(largest / resolveMs[0]!).toFixed(2)}x`);
  if (sink < 0) console.log(sink);
  if (!allIdentical) process.exitCode = 1;
}

main();
