import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { TIERS, type Tier, testFilesByTier, usesChromium } from './scripts/test-tiers.js';

const files = testFilesByTier();
/** The system tier's files that drive chromium. */
const browser = new Set(files.system.filter(usesChromium));
const src = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig(({ mode }) => ({
  resolve: {
    // Tests run against package sources; the built output is checked by the pack check in .ci/run.
    alias: [
      { find: /^@gateway\/sdk\/testing$/, replacement: src('./packages/sdk/src/testing/index.ts') },
      {
        find: /^@gateway\/sdk\/contract$/,
        replacement: src('./packages/sdk/src/contract/index.ts'),
      },
      { find: /^@gateway\/sdk\/kernel$/, replacement: src('./packages/sdk/src/kernel/index.ts') },
      { find: /^@gateway\/sdk$/, replacement: src('./packages/sdk/src/index.ts') },
      { find: /^@gateway\/server$/, replacement: src('./packages/server/src/index.ts') },
      // Test helpers of the server for other packages' tests; not published (test/, beside src/).
      {
        find: /^@gateway\/server\/testing$/,
        replacement: src('./packages/server/test/support/index.ts'),
      },
    ],
  },
  test: {
    // Three tiers (scripts/test-tiers.ts decides a file's tier from what it uses;
    // CONTRIBUTING.md), one vitest project each, the system tier's browser files in a project of
    // their own: `pnpm test` runs all, `pnpm test:fast` unit and integration.
    projects: [
      ...TIERS.map((tier) => ({
        extends: true as const,
        test: {
          name: tier,
          include:
            tier === 'system' ? files.system.filter((file) => !browser.has(file)) : files[tier],
          ...tierOptions(tier, mode),
          // The type tests (*.test-d.ts) run once, with the unit tier.
          typecheck: { enabled: tier === 'unit' },
          // A worker runs file after file of the unit and integration tiers in the same modules,
          // so each is imported and transformed once, not once per file (most of the import and
          // transform time of test:fast); those files leave no state behind in modules or the
          // process (CONTRIBUTING.md). The system tier's other files keep one module graph each.
          isolate: tier === 'system',
        },
      })),
      {
        extends: true as const,
        test: {
          // The browser files of the system tier (`vitest run --project 'system*'` runs both).
          name: 'system-browser',
          include: [...browser],
          ...tierOptions('system', mode),
          typecheck: { enabled: false },
          // They run in the same modules like the integration tier (each file starts its own
          // gateways and closes them), so the server is imported once per worker, not once per
          // file (~7 s of each file's time at load 16), and they share one chromium, launched
          // when the first asks and closed when the run ends; each test makes its own contexts.
          isolate: false,
          // A poll there waits on a page in another process (CONTRIBUTING.md: 10-15 s for a
          // poll across processes); the 1 s default failed admin and endpoint polls at load 30+.
          expect: { poll: { timeout: 15_000 } },
          globalSetup: ['packages/server/test/web/chromium-broker.global-setup.ts'],
        },
      },
    ],
    typecheck: {
      enabled: true,
      include: ['packages/*/src/**/*.test-d.ts', 'examples/*/src/**/*.test-d.ts'],
      tsconfig: './tsconfig.typetest.json',
    },
    // CI also writes a JSON report, from which .ci/run prints its closing summary line.
    reporters: process.env.CI
      ? ['default', ['json', { outputFile: '.test-artifacts/vitest.json' }]]
      : ['default'],
    // Names the run's PostgreSQL test schemas, drops them when it ends, and drops those of runs
    // that crashed (packages/server/test/db/schema-run.ts). Names the folder of the run's one
    // `gateway-server` bundle, which the system tier's gateways start from (test/support/bin-bundle.ts).
    globalSetup: [
      'packages/server/test/support/schema-run.global-setup.ts',
      'packages/server/test/support/bin-bundle.global-setup.ts',
    ],
    // Fails a test file when a log line of its test gateways, or anything it printed, holds a
    // secret or token its gateways were sent, stored or handed out.
    setupFiles: [
      'packages/server/test/support/leak-check.setup.ts',
      // Keeps a unit file off sockets and processes, an integration file off processes.
      'packages/server/test/support/tier-guard.setup.ts',
    ],
    // Most test time is spent waiting on servers, browsers and sockets, so two files at once
    // even on two cores (vitest's default there is one): CI's tests take ~600 s instead of ~850.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
}));

/** What the projects of `tier` set alike. */
function tierOptions(tier: Tier, mode: string) {
  return {
    // `pnpm test:fast` (`--mode fast`) tells the property tests to try fewer examples.
    env: { GATEWAY_TEST_TIER: tier, ...(mode === 'fast' ? { GATEWAY_TEST_FAST: '1' } : {}) },
    // A system test drives processes, browsers and proxies on a shared machine: its time limit
    // only catches a hang, and 30 s cut real runs short on a loaded CI machine (a page-by-page
    // browser walk took 40 s there).
    ...(tier === 'system' ? { testTimeout: 120_000, hookTimeout: 180_000 } : {}),
  };
}
