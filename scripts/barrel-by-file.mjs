import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/**
 * An esbuild plugin pointing a package's imports of a barrel (`@gateway/sdk/contract`, ~15 files
 * of answer schemas) at the file that defines each name. With code splitting, esbuild puts every
 * file a barrel re-exports into the chunk of whatever imports the barrel, used or not: the two
 * names the server's start needs built all ~280 contract schemas before its first answer, though
 * only the `/api` routes, built on first use, read the rest (issue 37).
 *
 * @param {{ specifier: string, index: string, importers: RegExp }} options the barrel's import
 *   specifier, its `index.ts` path, and the files whose imports are rewritten
 * @returns {import('esbuild').Plugin}
 */
export function barrelByFile({ specifier, index, importers }) {
  const fileOf = definingFiles(readFileSync(index, 'utf8'), dirname(index));
  return {
    name: 'barrel-by-file',
    setup(build) {
      build.onLoad({ filter: importers }, async (args) => {
        const source = await readFile(args.path, 'utf8');
        if (!source.includes(`'${specifier}'`)) return undefined;
        return { contents: importsByFile(source, specifier, fileOf), loader: 'ts' };
      });
    },
  };
}

/**
 * The file each name of a barrel is defined in, from its `export { ... } from './file.js'` lines.
 *
 * @param {string} barrel the barrel's source
 * @param {string} dir the barrel's folder
 * @returns {Map<string, string>}
 */
export function definingFiles(barrel, dir) {
  const fileOf = new Map();
  for (const [, names = '', file = ''] of barrel.matchAll(
    /export\s*\{([^}]*)\}\s*from\s*'\.\/([\w-]+)\.js'/g,
  )) {
    for (const name of boundNames(names)) fileOf.set(name, join(dir, `${file}.ts`));
  }
  return fileOf;
}

/**
 * `source` with each `import { ... } from specifier` split into imports of the defining files;
 * an import naming something the barrel does not list is left as it is.
 *
 * @param {string} source
 * @param {string} specifier
 * @param {Map<string, string>} fileOf
 * @returns {string}
 */
export function importsByFile(source, specifier, fileOf) {
  const escaped = specifier.replace(/[/.]/g, '\\$&');
  return source.replace(
    new RegExp(`import\\s*\\{([^}]*)\\}\\s*from\\s*'${escaped}';`, 'g'),
    (statement, names) => {
      const byFile = new Map();
      for (const entry of names
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean)) {
        const file = fileOf.get(boundNames(entry)[0] ?? '');
        if (file === undefined) return statement;
        byFile.set(file, [...(byFile.get(file) ?? []), entry]);
      }
      return [...byFile]
        .map(([file, entries]) => `import { ${entries.join(', ')} } from ${JSON.stringify(file)};`)
        .join(' ');
    },
  );
}

/** The exported names of a specifier list (`type A`, `b as c` give `A`, `b`). */
function boundNames(specifiers) {
  return specifiers
    .split(',')
    .map(
      (part) =>
        part
          .trim()
          .replace(/^type\s+/, '')
          .split(/\s+as\s+/)[0] ?? '',
    )
    .filter(Boolean);
}
