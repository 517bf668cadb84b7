import { existsSync } from 'node:fs';
import { mkdir, open, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { type BuildOptions, build, type Plugin } from 'esbuild';
import { writeCommonJsEntry } from '../../build/commonjs-entry.js';
import {
  bundledBetterSqlite3,
  englishZodLocales,
  oneOpenTelemetryApi,
  requiredHttpBuiltins,
} from '../../build/esbuild-plugins.js';
import { writeScriptForm } from '../../build/script-form.js';

/** Set by the run's global setup (bin-bundle.global-setup.ts): the run's bundle folder. */
export const BIN_BUNDLE_ENV = 'GATEWAY_TEST_BIN_BUNDLE';

const server = fileURLToPath(new URL('../../', import.meta.url));
/**
 * Inside the package's node_modules, so what the bundle leaves as imports (native drivers, tsx,
 * OpenTelemetry's SDK) resolves from there as it does from dist/.
 */
export const BUNDLES = join(server, 'node_modules', '.cache', 'gateway-test-bin');
/** How long a worker waits for another worker's build of the same bundle. */
const WAIT_MS = 120_000;

let own: Promise<string> | undefined;

/** OpenTelemetry's packages but its API stay imports (esbuild's `external` has no exceptions). */
const openTelemetrySdkOutside: Plugin = {
  name: 'open-telemetry-sdk-outside',
  setup(build) {
    build.onResolve({ filter: /^@opentelemetry\// }, (args) =>
      args.path === '@opentelemetry/api' ? undefined : { path: args.path, external: true },
    );
  },
};

/** What both builds of the bundle share. */
const common = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  conditions: ['@gateway/source'],
  // Left as imports, as in the published bundle: pg, tsx, OpenTelemetry's SDK (better-sqlite3's
  // JavaScript is bundled, its addon found where the package is installed).
  external: ['pg', 'tsx', 'tsx/*'],
  plugins: [
    openTelemetrySdkOutside,
    bundledBetterSqlite3,
    englishZodLocales,
    oneOpenTelemetryApi,
    requiredHttpBuiltins,
  ],
  logLevel: 'silent',
} satisfies BuildOptions;

/**
 * The path of `gateway-server` bundled from the current sources (`src/server-main.ts` as the
 * scripts the shipped bin loads, and its loader `src/script-bin.ts` as the CommonJS `bin.cjs`
 * that `bin.js` requires, with the
 * `@gateway/source` condition, as `pnpm start` runs them), built once per test run: the first
 * test that spawns a gateway builds it (~1 s), the others reuse it. A spawned gateway then starts
 * in about a fifth of the time it takes through tsx, which resolves and transforms ~1,500 module
 * files at every start. The bundle is made like the published one (build/esbuild-plugins.ts,
 * build/script-form.ts, build/commonjs-entry.ts).
 */
export function bundledBin(): Promise<string> {
  // Outside a vitest run of this repository's config: a folder of this process's own, which the
  // next run's global setup removes once it is old.
  own ??= bundleOnce(process.env[BIN_BUNDLE_ENV] ?? join(BUNDLES, `process-${process.pid}`));
  return own;
}

/** Builds into `dir` unless another worker of the run does (or did): then waits for it. */
async function bundleOnce(dir: string): Promise<string> {
  const bin = join(dir, 'bin.js');
  await mkdir(dir, { recursive: true });
  const lock = await open(join(dir, 'lock'), 'wx').catch(() => undefined);
  if (lock === undefined) return waitFor(dir, bin);
  await lock.close();
  try {
    // As published (tsup.config.ts): the server as ES chunks, written again as the scripts of
    // bin/, bin.cjs, which loads them, and bin.js, which requires it, so every test that spawns
    // the bin runs the loader.
    const chunks = join(dir, 'es');
    await build({
      ...common,
      entryPoints: { 'server-main': join(server, 'src/server-main.ts') },
      outdir: chunks,
      splitting: true,
    });
    await writeScriptForm(chunks, join(dir, 'bin'));
    await rm(chunks, { recursive: true, force: true });
    await writeCommonJsEntry(join(server, 'src/script-bin.ts'), join(dir, 'bin.cjs'), [
      ...common.conditions,
    ]);
    await build({
      ...common,
      entryPoints: { bin: join(server, 'src/script-bin-module.ts') },
      outdir: dir,
    });
    await writeFile(join(dir, 'ready'), '');
    return bin;
  } catch (error) {
    await writeFile(join(dir, 'failed'), error instanceof Error ? error.message : String(error));
    throw error;
  }
}

async function waitFor(dir: string, bin: string): Promise<string> {
  const until = Date.now() + WAIT_MS;
  while (Date.now() < until) {
    if (existsSync(join(dir, 'ready'))) return bin;
    if (existsSync(join(dir, 'failed'))) {
      throw new Error(
        `bundling gateway-server failed: ${await readFile(join(dir, 'failed'), 'utf8')}`,
      );
    }
    await sleep(50);
  }
  throw new Error(`no gateway-server bundle in ${dir} after ${WAIT_MS} ms`);
}

/** Removes a run's bundle folder. */
export function removeBundle(dir: string): Promise<void> {
  return rm(dir, { recursive: true, force: true });
}
