import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError } from '../../cli-error.js';
import { pathExists } from '../../project/path-exists.js';
import { isRecord, readPackageJson } from '../../project/read-package-json.js';
import { findPluginEntry } from '../test/find-entry.js';

/** A plugin `gateway dev` loads: its project folder and its entry file relative to it. */
export interface PluginSource {
  dir: string;
  entry: string;
}

/** Options of {@link findPluginSources}. */
export interface FindPluginSourcesOptions {
  /**
   * At the repository root, also the examples that are test fixtures (`"gateway": { "fixture":
   * true }` in their package.json, e.g. the MCP conformance suite's tools). Default false.
   */
  fixtures?: boolean | undefined;
}

/**
 * The plugins to run: the current plugin project, or, at the root of the Gateway repository (a
 * folder with `examples/<name>/src/index.ts` and no plugin of its own), every example but the
 * test fixtures, which would otherwise crowd the real examples out of `pnpm start`'s tool list
 * (issue 18) unless asked for.
 *
 * @throws CliError when neither is found, saying how to start a plugin.
 */
export async function findPluginSources(
  cwd: string,
  options: FindPluginSourcesOptions = {},
): Promise<PluginSource[]> {
  try {
    return [{ dir: cwd, entry: await findPluginEntry(cwd) }];
  } catch (error) {
    const examples = join(cwd, 'examples');
    const names = (await pathExists(examples)) ? (await readdir(examples)).sort() : [];
    const sources: PluginSource[] = [];
    for (const name of names) {
      const dir = join(examples, name);
      if (!(await pathExists(join(dir, 'src', 'index.ts')))) continue;
      if (!options.fixtures && (await isFixture(dir))) continue;
      sources.push({ dir, entry: 'src/index.ts' });
    }
    if (sources.length > 0) return sources;
    if (CliError.isInstance(error)) throw error;
    throw new CliError(`No plugin found in ${cwd}; run \`gateway new <name>\` to start one`);
  }
}

async function isFixture(dir: string): Promise<boolean> {
  const manifest = await readPackageJson(dir);
  const gateway = manifest?.gateway;
  return isRecord(gateway) && gateway.fixture === true;
}
