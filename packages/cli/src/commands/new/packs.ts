import { copyFile, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError } from '../../cli-error.js';

/** The folder of the project the packed packages are kept in. */
export const PACKS_FOLDER = 'gateway-packs';

const PACKAGES = ['sdk', 'cli', 'server'] as const;

/** The packed `@gateway/*` packages of one release: package name -> tarball path. */
export type Packs = Record<string, string>;

/**
 * Finds `gateway-{sdk,cli,server}-<version>.tgz` (as `pnpm pack` names them) in `folder`: a
 * release that is not on the registry (the repository's `try-plugin` and `local-registry`).
 *
 * @throws CliError naming the first tarball missing.
 */
export async function findPacks(folder: string, version: string): Promise<Packs> {
  const entries = await readdir(folder).catch(() => {
    throw new CliError(`--packs ${folder} is not a folder; name the folder of the gateway-*.tgz`);
  });
  const packs: Packs = {};
  for (const name of PACKAGES) {
    const file = `gateway-${name}-${version}.tgz`;
    if (!entries.includes(file)) {
      throw new CliError(
        `No ${file} in ${folder}; pack @gateway/${name} ${version} there (pnpm pack)`,
      );
    }
    packs[`@gateway/${name}`] = join(folder, file);
  }
  return packs;
}

/** The dependency ranges that take each package from its tarball in the project. */
export function packRanges(packs: Packs): Record<string, string> {
  return Object.fromEntries(
    Object.entries(packs).map(([name, path]) => [
      name,
      `file:${PACKS_FOLDER}/${path.split(/[\\/]/).pop()}`,
    ]),
  );
}

/** Copies the tarballs into the project's gateway-packs/, where package.json points. */
export async function copyPacks(packs: Packs, dir: string): Promise<void> {
  if (Object.keys(packs).length === 0) return;
  await mkdir(join(dir, PACKS_FOLDER), { recursive: true });
  for (const path of Object.values(packs)) {
    await copyFile(path, join(dir, PACKS_FOLDER, path.split(/[\\/]/).pop()!));
  }
}
