import { mkdir, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { BIN_BUNDLE_ENV, BUNDLES, removeBundle } from './bin-bundle.js';

/** A bundle folder this old is a crashed run's. */
const STALE_MS = 6 * 60 * 60 * 1000;

/**
 * Names the run's `gateway-server` bundle folder (`BIN_BUNDLE_ENV`; test/support/bin-bundle.ts
 * builds it when a test first spawns a gateway), removes it when the run ends or before a watch
 * rerun (the sources may have changed: the rerun bundles them again), and removes the folders
 * crashed runs left behind.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await mkdir(BUNDLES, { recursive: true });
  for (const name of await readdir(BUNDLES)) {
    const path = join(BUNDLES, name);
    const { mtimeMs } = await stat(path).catch(() => ({ mtimeMs: Date.now() }));
    if (Date.now() - mtimeMs > STALE_MS) await removeBundle(path);
  }
  const dir = join(BUNDLES, `run-${process.pid}-${Date.now()}`);
  process.env[BIN_BUNDLE_ENV] = dir;
  project.onTestsRerun(() => removeBundle(dir));
  return () => removeBundle(dir);
}
