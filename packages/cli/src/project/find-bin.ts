import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

/**
 * Finds the script of a package's executable as Node resolves the package from `cwd` (walking up
 * through each `node_modules`, so hoisted workspace installs count). Running the script with
 * `process.execPath` works on every platform, unlike `node_modules/.bin` shims on Windows.
 *
 * @returns the script's absolute path, or undefined when the package is not installed.
 * @example
 * const vitest = await findPackageBin(cwd, 'vitest');
 * if (vitest) await runProcess(process.execPath, [vitest, 'run'], { cwd, env });
 */
export async function findPackageBin(
  cwd: string,
  packageName: string,
  binName = packageName,
): Promise<string | undefined> {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const packageDir = join(dir, 'node_modules', packageName);
    const bin = await readBinField(join(packageDir, 'package.json'), binName);
    if (bin !== undefined) return join(packageDir, bin);
    if (dirname(dir) === dir) return undefined;
  }
}

async function readBinField(packageJsonPath: string, binName: string): Promise<string | undefined> {
  let bin: unknown;
  try {
    ({ bin } = JSON.parse(await readFile(packageJsonPath, 'utf8')) as { bin?: unknown });
  } catch {
    // Missing or unreadable: treat the package as not installed, and keep looking further up.
    return undefined;
  }
  if (typeof bin === 'string') return bin;
  if (typeof bin === 'object' && bin !== null) {
    const entry = (bin as Record<string, unknown>)[binName];
    if (typeof entry === 'string') return entry;
  }
  return undefined;
}
