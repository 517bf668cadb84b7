import { join } from 'node:path';
import { CliError } from '../../cli-error.js';
import { pathExists } from '../../project/path-exists.js';
import { isRecord, readPackageJson } from '../../project/read-package-json.js';

// Sources first: `gateway test` runs before any build.
const CANDIDATES = ['src/index.ts', 'src/index.js', 'dist/index.js'] as const;

/**
 * Finds the file whose default export is the plugin: package.json's `gateway.plugin`, else the
 * first of `src/index.ts`, `src/index.js`, `dist/index.js` that exists.
 *
 * @returns the path relative to `cwd`, with `/` separators.
 * @throws CliError when `gateway.plugin` names a missing file, or no candidate exists.
 */
export async function findPluginEntry(cwd: string): Promise<string> {
  const declared = await readDeclaredEntry(cwd);
  if (declared !== undefined) {
    if (await pathExists(join(cwd, declared))) return declared;
    throw new CliError(
      `package.json names "${declared}" as gateway.plugin, but there is no such file; fix the path`,
    );
  }
  for (const candidate of CANDIDATES) {
    if (await pathExists(join(cwd, candidate))) return candidate;
  }
  throw new CliError(
    `No plugin found in ${cwd}: expected src/index.ts, or a "gateway": { "plugin": "<file>" } field in package.json; run \`gateway new <name>\` to start one`,
  );
}

async function readDeclaredEntry(cwd: string): Promise<string | undefined> {
  const gateway = (await readPackageJson(cwd))?.gateway;
  if (!isRecord(gateway) || gateway.plugin === undefined) return undefined;
  if (typeof gateway.plugin !== 'string' || gateway.plugin === '') {
    throw new CliError(
      'package.json field gateway.plugin must be a file path, e.g. "src/index.ts"',
    );
  }
  return gateway.plugin;
}
