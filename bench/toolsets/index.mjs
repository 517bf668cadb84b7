/**
 * Launches the toolsets benchmark (bench.ts) with the workspace packages resolved to their built
 * files (tsx-paths.json), as `pnpm bench toolsets` measures the Gateway as released.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const script = fileURLToPath(new URL('./bench.ts', import.meta.url));
const tsconfig = fileURLToPath(new URL('./tsx-paths.json', import.meta.url));
const result = spawnSync(process.execPath, ['--import', 'tsx', script, ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...process.env, TSX_TSCONFIG_PATH: tsconfig },
});
if (result.error) throw result.error;
process.exit(result.status ?? 1);
