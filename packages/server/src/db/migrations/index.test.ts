/**
 * The one list of schema steps (issue 37): in the order they apply, each name loading its step. A
 * start checks the database against its names alone, so a step missing here would never run.
 */
import { readdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { loadMigrations, MIGRATIONS } from './index.js';

describe('MIGRATIONS', () => {
  it('names every step of the folder, in the order they apply, and loads each', async () => {
    const names = Object.keys(MIGRATIONS);
    expect([...names].sort()).toEqual(names);
    const files = (await readdir(new URL('.', import.meta.url)))
      .filter((file) => /^\d{3}-[\w-]+\.ts$/.test(file) && !file.endsWith('.test.ts'))
      .map((file) => file.slice(0, -'.ts'.length));
    expect(names).toEqual(files.sort());
    const steps = await loadMigrations();
    expect(Object.keys(steps)).toEqual(names);
    for (const name of names) expect(typeof steps[name]?.up, name).toBe('function');
  });
});
