import { execFileSync } from 'node:child_process';
import { globSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Issue 35 item 6: `npx pnpm@12 gateway` works from any folder of the repository. pnpm runs the
// script of the package whose folder it is in, so each workspace package hands `gateway` to the
// root's script (which runs the CLI from source at the root).
const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const packages = globSync(['packages/*/package.json', 'examples/*/package.json'], { cwd: root });

describe('pnpm gateway in any folder of the repository', () => {
  it('every workspace package hands gateway to the root script', () => {
    expect(packages.length).toBeGreaterThanOrEqual(8);
    for (const file of packages) {
      const { scripts } = JSON.parse(readFileSync(join(root, file), 'utf8')) as {
        scripts?: Record<string, string>;
      };
      expect(scripts?.gateway, `${file}: add "gateway": "pnpm -w run gateway" to its scripts`).toBe(
        'pnpm -w run gateway',
      );
    }
  });

  it('runs the CLI from an example plugin folder, on that folder', () => {
    // The pnpm that runs these tests (a script, or a JavaScript file for node), else PATH's.
    const pnpm = process.env.npm_execpath;
    const [command, args] =
      pnpm === undefined || !/pnpm/.test(pnpm)
        ? ['pnpm', ['gateway', '--version']]
        : /\.[cm]?js$/.test(pnpm)
          ? [process.execPath, [pnpm, 'gateway', '--version']]
          : [pnpm, ['gateway', '--version']];
    const run = (extra: string[], cwd: string) =>
      execFileSync(command, [...args.slice(0, -1), ...extra], {
        cwd,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    const version = run(['--version'], join(root, 'examples/weather'));
    expect(version.trim().split('\n').at(-1)).toMatch(/^\d+\.\d+\.\d+/);
    // The command acts on the folder it was typed in, not on the root where the script runs.
    const tested = run(['test', '--no-tests', '--json'], join(root, 'examples/weather/src'));
    expect(JSON.parse(tested.slice(tested.indexOf('{')))).toMatchObject({
      ok: true,
      plugin: 'weather',
    });
  }, 60_000);
});
