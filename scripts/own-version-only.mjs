import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';

/**
 * An esbuild plugin for a package whose sources import its own package.json for the version: the
 * bundle gets `{ "version": ... }` alone instead of the whole file (its scripts and dependency
 * lists are not the bundle's to carry).
 *
 * @param {string} packageDir the package's folder
 * @returns {import('esbuild').Plugin}
 */
export function ownVersionOnly(packageDir) {
  const own = resolve(packageDir, 'package.json');
  return {
    name: 'own-version-only',
    setup(build) {
      build.onLoad({ filter: /[\\/]package\.json$/ }, async (args) => {
        if (resolve(args.path) !== own) return undefined;
        const { version } = JSON.parse(await readFile(own, 'utf8'));
        return { contents: JSON.stringify({ version }), loader: 'json' };
      });
    },
  };
}
