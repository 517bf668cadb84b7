import { readFileSync } from 'node:fs';
import { getCompileCacheDir } from 'node:module';
import { join } from 'node:path';
import { createScriptLoader } from './load-scripts.js';
import { BUILD_ID, ScriptCache } from './script-cache.js';

/** The file beside the scripts naming their build: another build's caches are never read. */
export const BUILD_ID_FILE = 'build-id';

/**
 * Runs the script `entry` of `directory` (the bin's scripts), with code caches beside Node's
 * compile cache when that is on (src/compile-cache.ts turns it on first), written after the
 * first answer. Throws what the entry throws as it loads.
 *
 * @example
 * enableServerCompileCache();
 * runScripts(fileURLToPath(new URL('./bin/', import.meta.url)), 'server-main.js');
 */
export function runScripts(directory: string, entry: string): void {
  createScriptLoader(directory, scriptCache(directory)).load(entry);
}

function scriptCache(directory: string): ScriptCache | undefined {
  const nodeCache = getCompileCacheDir?.();
  if (nodeCache === undefined) return undefined;
  let buildId: string;
  try {
    buildId = readFileSync(join(directory, BUILD_ID_FILE), 'utf8').trim();
  } catch {
    return undefined;
  }
  if (!BUILD_ID.test(buildId)) return undefined;
  const cache = new ScriptCache(nodeCache, buildId);
  cache.writeAfterResponses();
  return cache;
}
