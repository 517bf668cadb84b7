import { access } from 'node:fs/promises';

/** Whether a file or folder exists at `path`. */
export async function pathExists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
