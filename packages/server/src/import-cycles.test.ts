/**
 * No module of the sdk, the server or the CLI reaches itself through its imports, type-only
 * imports included (issue 36; the rule is in `.dependency-cruiser.cjs`, `pnpm check:imports` runs
 * it too). A deliberate cycle in a scratch folder shows the same check fails.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..', '..');

/** Runs dependency-cruiser with the repository's rules over `paths`; its exit code and output. */
function cruise(paths: string[]): { status: number | null; output: string } {
  const result = spawnSync(
    process.execPath,
    [
      join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruiser.mjs'),
      ...paths,
      '--config',
      join(ROOT, '.dependency-cruiser.cjs'),
      '--output-type',
      'err',
    ],
    { cwd: ROOT, encoding: 'utf8', timeout: 120_000 },
  );
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('imports', () => {
  it('of packages/*/src form no cycle, type-only imports included', () => {
    const { status, output } = cruise([
      'packages/sdk/src',
      'packages/server/src',
      'packages/cli/src',
    ]);
    expect(output).toContain('no dependency violations found');
    expect(status).toBe(0);
  }, 120_000);

  it('the check fails on a cycle made of type-only imports', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-cycle-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(
      join(dir, 'a.ts'),
      "import type { B } from './b.js';\nexport interface A { b?: B }\n",
    );
    writeFileSync(
      join(dir, 'b.ts'),
      "import type { A } from './a.js';\nexport interface B { a?: A }\n",
    );
    writeFileSync(join(dir, 'c.ts'), "import type { A } from './a.js';\nexport type C = A;\n");
    const { status, output } = cruise([dir]);
    expect(status).not.toBe(0);
    expect(output).toContain('no-circular');
    expect(output).toMatch(/a\.ts → \s*\S*b\.ts/);
  }, 120_000);
});
