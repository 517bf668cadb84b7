/**
 * The names a start checks the database against (issue 37) are the steps it would apply: a step
 * missing from the list would never run on a database that has every listed one.
 */
import { describe, expect, it } from 'vitest';
import { MIGRATION_NAMES } from './migration-names.js';
import { migrations } from './migrations/index.js';

describe('MIGRATION_NAMES', () => {
  it("is every step's name, in the order they apply", () => {
    expect(MIGRATION_NAMES).toEqual(Object.keys(migrations));
    expect([...MIGRATION_NAMES].sort()).toEqual(MIGRATION_NAMES);
  });
});
