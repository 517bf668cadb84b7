import { mkdir, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { BIN_BUNDLE_ENV, BUNDLES, bundledBin, removeBundle } from './bin-bundle.js';

/** A bundle folder this old is a crashed run's. */
const STALE_MS = 6 * 60 * 60 * 1000;

/**
 * Names the run's `gateway-server` bundle folder (`BIN_BUNDLE_ENV`), removes it when the run
 * ends or before a watch rerun (the sources may have changed: the rerun bundles them again), and
 * removes the folders crashed runs left behind. Vitest runs this once for the run and once per
 * project with files to test: the first call names the folder, and the system tier's starts
 * building the bundle at once, beside the other tiers' tests, so that its first spawned gateway
 * finds it ready (test/support/bin-bundle.ts; a test builds it itself when run on its own).
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | void> {
  const named = process.env[BIN_BUNDLE_ENV];
  if (named === undefined) {
    await mkdir(BUNDLES, { recursive: true });
    for (const name of await readdir(BUNDLES)) {
      const path = join(BUNDLES, name);
      const { mtimeMs } = await stat(path).catch(() => ({ mtimeMs: Date.now() }));
      if (Date.now() - mtimeMs > STALE_MS) await removeBundle(path);
    }
  }
  const dir = named ?? join(BUNDLES, `run-${process.pid}-${Date.now()}`);
  process.env[BIN_BUNDLE_ENV] = dir;
  // A failed build is reported by the test that needs the bundle (it finds the reason beside it).
  if (project.name === 'system') bundledBin().catch(() => {});
  if (named !== undefined) return;
  project.onTestsRerun(() => removeBundle(dir));
  return () => removeBundle(dir);
}
