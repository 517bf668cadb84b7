import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Plugin authors install only the sdk, and its root entry must run anywhere a plugin runs: it may
// import nothing but its own files and zod. The built file is checked again by the pack check.
const here = dirname(fileURLToPath(import.meta.url));
const importPattern =
  /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function importGraph(entry: string): { files: Set<string>; external: Set<string> } {
  const files = new Set<string>();
  const external = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const match of readFileSync(file, 'utf8').matchAll(importPattern)) {
      const specifier = match[1] ?? match[2];
      if (specifier === undefined) continue;
      if (specifier.startsWith('.'))
        visit(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
      else external.add(specifier);
    }
  };
  visit(entry);
  return { files, external };
}

describe('the sdk root entry', () => {
  it('imports no node: module and no package but zod', () => {
    const { files, external } = importGraph(resolve(here, 'index.ts'));
    expect(files.size).toBeGreaterThan(5);
    expect([...external].filter((name) => name !== 'zod')).toEqual([]);
  });
});
