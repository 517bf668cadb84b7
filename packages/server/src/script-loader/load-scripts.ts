/**
 * Runs the bin's scripts (build/script-form.ts) the way Node would have run the ES chunks they
 * were made from: each once, its `require` of another chunk the loaded chunk, its dynamic import
 * of one a promise of it, and everything else (built-ins, better-sqlite3, a plugin's `import()`)
 * through Node's own `require` and `import()`. Each script is compiled with its code cache when
 * there is one (script-cache.ts).
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Script } from 'node:vm';
import type { ScriptCache } from './script-cache.js';
import { readScriptSource } from './script-source.js';

/** A script's function, as its wrapper declares it (build/script-form.ts, SCRIPT_PARAMETERS). */
type ScriptFunction = (
  exports: unknown,
  require: NodeJS.Require,
  module: { exports: unknown },
  filename: string,
  dirname: string,
  gatewayImport: (specifier: string, options?: ImportCallOptions) => Promise<unknown>,
  gatewayChunk: (file: string) => Promise<unknown>,
  scriptUrl: string,
) => void;

/** Whether a specifier names another chunk of the same build, as esbuild writes it. */
function isChunk(specifier: string): boolean {
  return specifier.startsWith('./') && !specifier.includes('/', 2);
}

/**
 * A loader of the scripts in `directory`, with their code caches in `cache` (none when
 * `undefined`). `load(file)` runs a script (once) and returns its exports; it throws what the
 * script throws.
 *
 * @example
 * createScriptLoader('/app/dist/bin', cache).load('server-main.js');
 */
export function createScriptLoader(directory: string, cache: ScriptCache | undefined) {
  const modules = new Map<string, { exports: unknown }>();
  const nodeRequire = createRequire(join(directory, 'index.js'));
  const chunkRequire = Object.assign(
    (specifier: string) => (isChunk(specifier) ? load(specifier.slice(2)) : nodeRequire(specifier)),
    nodeRequire,
  ) as NodeJS.Require;
  const chunkImport = (file: string) => Promise.resolve().then(() => load(file));
  // From this module, which lies beside the scripts' directory (dist/bin.js and dist/bin/): a
  // package resolves to the same installed copy as from a script.
  const nodeImport = (specifier: string, options?: ImportCallOptions) => import(specifier, options);

  function load(file: string): unknown {
    const loaded = modules.get(file);
    if (loaded !== undefined) return loaded.exports;
    const filename = join(directory, file);
    const source = readScriptSource(filename);
    const found = cache?.read(file, source);
    const script = new Script(source.bytes.toString('utf8'), { filename, cachedData: found?.data });
    if (found === undefined || found.restamp || script.cachedDataRejected === true) {
      cache?.needs(file, script, source);
    }
    const module = { exports: {} };
    modules.set(file, module);
    const run = script.runInThisContext() as ScriptFunction;
    run.call(
      undefined,
      module.exports,
      chunkRequire,
      module,
      filename,
      directory,
      nodeImport,
      chunkImport,
      pathToFileURL(filename).href,
    );
    return module.exports;
  }

  return { load };
}
