import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError } from '../cli-error.js';

/** Whether `value` is a plain JSON object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The project's package.json as an object, or undefined when there is none.
 *
 * @throws CliError when package.json is not valid JSON or not an object.
 */
export async function readPackageJson(cwd: string): Promise<Record<string, unknown> | undefined> {
  let text: string;
  try {
    text = await readFile(join(cwd, 'package.json'), 'utf8');
  } catch {
    return undefined;
  }
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch (error) {
    throw new CliError(`package.json is not valid JSON (${(error as Error).message}); fix it`);
  }
  if (!isRecord(manifest)) throw new CliError('package.json must hold a JSON object; fix it');
  return manifest;
}
