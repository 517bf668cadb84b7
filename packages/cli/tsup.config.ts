import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'tsup';
import { ownVersionOnly } from '../../scripts/own-version-only.mjs';

/**
 * `gateway --help` as commander prints it from the sources (80 columns, no colour). bin.js prints
 * this text itself, so `--help` starts as fast as `--version` (bench/cli-startup);
 * `src/quick-answer.test.ts` checks that commander's help fits 80 columns unchanged.
 */
function renderHelp(): string {
  return execFileSync(process.execPath, ['--import', 'tsx', 'src/bin.ts', '--help'], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
  });
}

export default defineConfig(() => ({
  // bin.js holds only the quick answers; cli code and each command load when they run.
  entry: ['src/bin.ts', 'src/index.ts', 'src/commands/*/index.ts'],
  format: ['esm'],
  dts: { entry: { index: 'src/index.ts' }, compilerOptions: { paths: {} } },
  clean: true,
  target: 'node22',
  platform: 'node',
  splitting: true,
  define: { __GATEWAY_HELP__: JSON.stringify(renderHelp()) },
  // `version` reads package.json: the bundle carries its version, not the whole file.
  esbuildPlugins: [ownVersionOnly(fileURLToPath(new URL('.', import.meta.url)))],
}));
