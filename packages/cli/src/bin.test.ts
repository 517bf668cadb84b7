import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { version } from './version.js';

const here = dirname(fileURLToPath(import.meta.url));
const importPattern = /^(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]/gm;

/** The files and packages `entry` loads at startup: static imports only, not `import()`. */
function staticImports(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const match of readFileSync(file, 'utf8').matchAll(importPattern)) {
      const specifier = match[1]!;
      if (specifier.startsWith('.'))
        visit(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
      else if (!/^import\s+type\s/.test(match[0])) packages.add(specifier);
    }
  };
  visit(entry);
  return { files, packages };
}

describe('gateway startup', () => {
  // `gateway --help` and `--version` must start about as fast as node itself (bench/cli-startup).
  it('answers --help and --version without loading any package', () => {
    const { packages } = staticImports(resolve(here, 'bin.ts'));
    expect([...packages].filter((name) => !name.startsWith('node:'))).toEqual([]);
  });

  it('loads only commander and the declarations before a command runs', () => {
    const { files, packages } = staticImports(resolve(here, 'main.ts'));
    expect([...packages].filter((name) => !name.startsWith('node:')).sort()).toEqual(['commander']);
    const commandFiles = [...files].filter((file) => file.includes('/commands/'));
    expect(commandFiles.map((file) => file.slice(file.indexOf('/commands/')))).toEqual([
      '/commands/new/template-names.ts',
    ]);
  });

  it('runs as a process: version on stdout, usage errors exit 2', () => {
    const gateway = (...args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', resolve(here, 'bin.ts'), ...args], {
        cwd: here,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1' },
      });
    expect(gateway('--version')).toMatchObject({ status: 0, stdout: `${version}\n`, stderr: '' });
    expect(gateway('--help')).toMatchObject({
      status: 0,
      stdout: expect.stringContaining('Usage: gateway'),
    });
    expect(gateway('nwe')).toMatchObject({
      status: 2,
      stdout: '',
      stderr: "error: unknown command 'nwe' (Did you mean new?); see `gateway --help`\n",
    });
  });
});
