import { accessFixtures } from './fixtures-access.js';
import { adminFixtures } from './fixtures-admin.js';
import { userDataFixtures } from './fixtures-user-data.js';
import type { Fixture } from './matrix-types.js';

/**
 * One fixture per route of `gateway.routes()`, keyed `METHOD /path`. A route without one fails the
 * matrix: every route must say who may call it.
 */
export const fixtures: Record<string, Fixture> = {
  ...userDataFixtures,
  ...adminFixtures,
  ...accessFixtures,
};
