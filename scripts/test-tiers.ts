/**
 * Which tier each test file belongs to: `unit` (opens no socket), `integration` (real HTTP,
 * SQLite and PostgreSQL in the test process), `system` (spawned processes, Chromium, haproxy,
 * crash recovery, the deploy files). Decided from what a file is and what it uses, so a new
 * test file lands in its tier without being listed anywhere:
 *
 * - a line `// test tier: <tier>` in the file wins;
 * - `*.e2e.test.ts` files and the tests under a `deploy/` folder are `system`;
 * - a file that uses `node:child_process`, or a test helper that does (followed through its
 *   `#test/...`, `@gateway/*\/testing` and relative imports into `test/` and `testing/` folders),
 *   or that names Chromium or a `stdio` upstream command, is `system`;
 * - a file (or such a helper) that uses a socket, HTTP, a database or a test gateway is
 *   `integration`;
 * - the rest is `unit`. The unit tier's setup file (`scripts/unit-tier.setup.ts`) fails a unit
 *   file that opens a socket after all, naming the line to add.
 *
 * `vitest.config.ts` makes one vitest project per tier from this. `pnpm test:tiers [part of a
 * path]` prints each file's tier and why (`--summary` only the counts).
 */
import { globSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export type Tier = 'unit' | 'integration' | 'system';
export const TIERS: readonly Tier[] = ['unit', 'integration', 'system'];

export const TEST_FILE_GLOBS = [
  'packages/*/src/**/*.test.ts',
  'packages/*/test/**/*.test.ts',
  'examples/*/src/**/*.test.ts',
  'bench/**/*.test.ts',
  'scripts/**/*.test.ts',
];

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const SYSTEM_PATHS: readonly RegExp[] = [/\.e2e\.test\.ts$/, /\/deploy\//];

/** Process starts and the programs the system tier drives. */
const SYSTEM_MARKERS: readonly RegExp[] = [
  /['"]node:child_process['"]/,
  /\bchromium\b/i,
  // The CLI's own process runner, called for real (tsc, vitest, npm).
  /\brunProcess\(/,
  // A stdio upstream is a child process the gateway spawns; the test names its command.
  /transport:\s*['"]stdio['"]/,
  /command:\s*(\$\{)?\s*(JSON\.stringify\()?process\.execPath/,
  /\bupstreams:[^\n]*\bcommand:/,
];

/** Sockets, HTTP, databases and the test gateways built on them. */
const INTEGRATION_MARKERS: readonly RegExp[] = [
  /['"]node:(net|http|https|http2|tls|dgram)['"]/,
  /['"](undici|pg|better-sqlite3|hono\/[\w-]*server|@hono\/node-server)['"]/,
  /\bfetch\(/,
  /\.listen\(/,
  /TEST_DATABASE_URL|postgres(ql)?:\/\//i,
  /\bsqlite\b/i,
  /\b(create|start)\w*(Gateway|Server|Upstream|Database|Listener|Provider|World)\b/,
  /['"]@gateway\/server['"]/,
  // MCP clients, and the CLI commands that serve a gateway or check a project against one.
  /['"]@modelcontextprotocol\/(client|sdk)/,
  /\brun(Dev|Test)\b/,
];

const OVERRIDE = /^\s*\/\/\s*test tier:\s*(unit|integration|system)\b/m;
const IMPORT =
  /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The test helper a specifier names, when it is one (helpers live in `test/` and `testing/`). */
function helperPath(specifier: string, from: string): string | undefined {
  let target: string | undefined;
  if (specifier.startsWith('.')) target = resolve(dirname(from), specifier);
  else if (specifier.startsWith('#test/')) {
    const pkg = from.match(/^(.*\/packages\/[^/]+)\//)?.[1];
    if (pkg) target = join(pkg, 'test', specifier.slice('#test/'.length));
  } else if (specifier === '@gateway/server/testing') {
    target = join(root, 'packages/server/test/support/index.ts');
  } else if (specifier === '@gateway/sdk/testing') {
    target = join(root, 'packages/sdk/src/testing/index.ts');
  }
  if (!target || !/\/(test|testing)\//.test(relative(root, target).replace(/^/, '/'))) return;
  return target.replace(/\.js$/, '.ts');
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** The file's own source and the sources of the test helpers it reaches. */
function sourcesOf(file: string): Map<string, string> {
  const seen = new Map<string, string>();
  const queue = [file];
  while (queue.length > 0) {
    const path = queue.pop()!;
    if (seen.has(path)) continue;
    const source = read(path);
    if (source === undefined) continue;
    seen.set(path, source);
    for (const match of source.matchAll(IMPORT)) {
      const helper = helperPath(match[1] ?? match[2]!, path);
      if (helper && !seen.has(helper)) queue.push(helper);
    }
  }
  return seen;
}

export interface Placement {
  file: string;
  tier: Tier;
  reason: string;
}

/** The tier of one test file (a path relative to the repository root), and why. */
export function tierOf(file: string): Placement {
  const path = join(root, file);
  const own = read(path) ?? '';
  const override = own.match(OVERRIDE)?.[1] as Tier | undefined;
  if (override) return { file, tier: override, reason: `"// test tier: ${override}" in the file` };
  const systemPath = SYSTEM_PATHS.find((pattern) => pattern.test(file));
  if (systemPath) return { file, tier: 'system', reason: `its path matches ${systemPath}` };
  const sources = sourcesOf(path);
  const find = (markers: readonly RegExp[]) => {
    for (const [source, text] of sources) {
      const marker = markers.find((pattern) => pattern.test(text));
      if (marker) return `${relative(root, source)} matches ${marker}`;
    }
    return undefined;
  };
  const system = find(SYSTEM_MARKERS);
  if (system) return { file, tier: 'system', reason: system };
  const integration = find(INTEGRATION_MARKERS);
  if (integration) return { file, tier: 'integration', reason: integration };
  return { file, tier: 'unit', reason: 'no socket, database or process found' };
}

/** Whether a test file (relative to the repository root) or a test helper it uses drives chromium. */
export function usesChromium(file: string): boolean {
  return [...sourcesOf(join(root, file)).values()].some((text) =>
    /['"]playwright-core['"]/.test(text),
  );
}

/** Every test file of the repository with its tier. */
export function placeTestFiles(): Placement[] {
  const files = TEST_FILE_GLOBS.flatMap((pattern) =>
    globSync(pattern, { cwd: root, exclude: (name) => name === 'node_modules' }),
  );
  return [...new Set(files)].sort().map((file) => tierOf(file));
}

/** The test files of each tier, relative to the repository root. */
export function testFilesByTier(): Record<Tier, string[]> {
  const byTier: Record<Tier, string[]> = { unit: [], integration: [], system: [] };
  for (const { file, tier } of placeTestFiles()) byTier[tier].push(file);
  return byTier;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const placements = placeTestFiles();
  const wanted = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
  if (process.argv.includes('--summary')) {
    for (const tier of TIERS) {
      console.log(`${tier}: ${placements.filter((p) => p.tier === tier).length} files`);
    }
  } else {
    for (const { file, tier, reason } of placements) {
      if (wanted.length === 0 || wanted.some((w) => file.includes(w))) {
        console.log(`${tier.padEnd(11)} ${file}  (${reason})`);
      }
    }
  }
}
