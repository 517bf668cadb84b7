import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { onTestFinished } from 'vitest';

// Test-only helpers: temporary plugin projects that resolve this workspace's packages without an
// install. Not part of the published build (tsup bundles only what the entries import).

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const sdkSrc = join(repoRoot, 'packages/sdk/src');

/** A temporary folder, removed when the current test finishes. */
export async function makeTempDir(prefix = 'gateway-cli-'): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Writes `files` (relative path -> content) under `dir`. */
export async function writeFiles(dir: string, files: Record<string, string>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
}

/**
 * Makes `@gateway/sdk` (and `@gateway/sdk/testing`) resolve in `projectDir` to the sdk's sources,
 * for vitest, tsx and tsc alike, through a small package outside any node_modules (so vitest
 * transforms it instead of handing TypeScript to Node). Also links `zod` (the sdk's own copy) and
 * the given tools from the workspace root.
 */
export async function linkWorkspace(
  projectDir: string,
  tools: readonly string[] = [],
): Promise<void> {
  const shim = await makeTempDir('gateway-sdk-shim-');
  await writeFiles(shim, {
    'package.json': JSON.stringify({
      name: '@gateway/sdk',
      type: 'module',
      exports: { '.': './index.ts', './testing': './testing.ts' },
    }),
    'index.ts': `export * from ${JSON.stringify(join(sdkSrc, 'index.js'))};\n`,
    'testing.ts': `export * from ${JSON.stringify(join(sdkSrc, 'testing/index.js'))};\n`,
  });
  const links: Record<string, string> = {
    '@gateway/sdk': shim,
    zod: await realpath(join(repoRoot, 'packages/sdk/node_modules/zod')),
  };
  for (const tool of tools) links[tool] = await realpath(join(repoRoot, 'node_modules', tool));
  for (const [name, target] of Object.entries(links)) {
    const path = join(projectDir, 'node_modules', name);
    await mkdir(dirname(path), { recursive: true });
    await symlink(target, path, 'junction');
  }
}
