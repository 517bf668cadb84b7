/**
 * Test helpers live in `test/` beside `src/` (docs/decisions.md, "Test helpers live outside
 * `src/`"), which is not published: a module of the server or the CLI that ships (anything in
 * `src/` but tests) must import nothing from there, or the packed package would break.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const PACKAGES = join(import.meta.dirname, '..', '..');

/** Every shipped source file of `pkg`: its `src/` without tests and type tests. */
function shipped(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return shipped(path);
    return /\.(ts|mts|mjs|js)$/.test(entry.name) && !/\.test(-d)?\.ts$/.test(entry.name)
      ? [path]
      : [];
  });
}

/** The module specifiers of a file's static and dynamic imports and re-exports. */
function specifiers(code: string): string[] {
  const found: string[] = [];
  for (const match of code.matchAll(
    /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"]([^'"]+)['"]/g,
  )) {
    if (match[1] !== undefined) found.push(match[1]);
  }
  return found;
}

describe('shipped code', () => {
  for (const pkg of ['server', 'cli']) {
    it(`of the ${pkg} imports nothing from its test/ folder`, () => {
      const root = join(PACKAGES, pkg);
      const tests = join(root, 'test');
      const files = shipped(join(root, 'src'));
      expect(files.length).toBeGreaterThan(50);
      const offending = files.flatMap((file) =>
        specifiers(readFileSync(file, 'utf8'))
          .filter(
            (specifier) =>
              specifier.startsWith('#test/') ||
              (specifier.startsWith('.') &&
                resolve(dirname(file), specifier).startsWith(`${tests}/`)),
          )
          .map((specifier) => `${relative(root, file)}: ${specifier}`),
      );
      expect(offending).toEqual([]);
    });
  }
});
