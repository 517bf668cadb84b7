import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { CliError } from '../cli-error.js';

/**
 * Reads a JSON file of the CLI's own. Undefined when it does not exist.
 *
 * @throws CliError when it exists but is not JSON, naming the file and what to do.
 */
export async function readJsonFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CliError(`Could not read ${path}: ${(error as Error).message}`, { cause: error });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new CliError(`${path} is not valid JSON; delete it and run \`gateway login\` again`, {
      cause: error,
    });
  }
}

/**
 * Writes `value` as JSON to `path`, readable and writable by the owner only (0600, in a 0700
 * folder). It goes to a temporary file first and is renamed into place, so a crash never leaves
 * half a file, and the mode is set before the content lands, so the secret is never readable by
 * others, not even for a moment.
 */
export async function writePrivateJsonFile(path: string, value: unknown): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.${Date.now()}.tmp`;
  try {
    await writeFile(temporary, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    // The umask may have narrowed the mode at creation, never widened it; this makes it exact.
    await chmod(temporary, 0o600);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw new CliError(`Could not write ${path}: ${(error as Error).message}`, { cause: error });
  }
}

/** Removes `path` if it exists. */
export async function removeFile(path: string): Promise<void> {
  await rm(path, { force: true });
}
