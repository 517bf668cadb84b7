import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError } from '../../cli-error.js';
import { pathExists } from '../../project/path-exists.js';
import { findPluginEntry } from '../test/find-entry.js';

/** A plugin `gateway dev` loads: its project folder and its entry file relative to it. */
export interface PluginSource {
  dir: string;
  entry: string;
}

/**
 * The plugins to run: the current plugin project, or, at the root of the Gateway repository (a
 * folder with `examples/<name>/src/index.ts` and no plugin of its own), every example.
 *
 * @throws CliError when neither is found, saying how to start a plugin.
 */
export async function findPluginSources(cwd: string): Promise<PluginSource[]> {
  try {
    return [{ dir: cwd, entry: await findPluginEntry(cwd) }];
  } catch (error) {
    const examples = join(cwd, 'examples');
    const names = (await pathExists(examples)) ? (await readdir(examples)).sort() : [];
    const sources: PluginSource[] = [];
    for (const name of names) {
      if (await pathExists(join(examples, name, 'src', 'index.ts'))) {
        sources.push({ dir: join(examples, name), entry: 'src/index.ts' });
      }
    }
    if (sources.length > 0) return sources;
    if (CliError.isInstance(error)) throw error;
    throw new CliError(`No plugin found in ${cwd}; run \`gateway new <name>\` to start one`);
  }
}
