// The bin's entry (src/script-bin.ts) as CommonJS, `bin.cjs` (issue 37): the npm bin and
// `dist/bin.js` require it, and Node runs a required CommonJS file without its ES module loader,
// whose work a start paid before its first script ran: resolving and linking the entry's modules,
// and a facade of every export of each built-in they import, which evaluates the lazy ones
// (`crypto.webcrypto`, `fs.promises`). The published build (tsup.config.ts) and the bundle the
// system tests spawn (test/support/bin-bundle.ts) both write it here.
import { build } from 'esbuild';

/**
 * Bundles `entry` (an ES module of Node built-ins and its own files) into the CommonJS file
 * `outfile`: strict, as the ES module it was written as, and with `import.meta.url` the file's
 * URL. An `import()` of a specifier esbuild cannot see (the loader's import of a package) stays an
 * `import()`, which CommonJS has too; esbuild's notice that it left one is silenced. Throws
 * esbuild's error when it does not build.
 *
 * @example
 * await writeCommonJsEntry('src/script-bin.ts', 'dist/bin.cjs');
 */
export async function writeCommonJsEntry(
  entry: string,
  outfile: string,
  conditions: string[] = [],
): Promise<void> {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node22',
    conditions,
    define: { 'import.meta.url': 'importMetaUrl' },
    banner: {
      js: "'use strict';\nconst importMetaUrl = require('node:url').pathToFileURL(__filename).href;",
    },
    logLevel: 'silent',
    logOverride: { 'unsupported-dynamic-import': 'silent' },
  });
}
