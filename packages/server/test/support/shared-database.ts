import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { createPostgresTestDatabase, postgresTestUrl } from '../db/test-database.js';

/** A database that several gateways of one test share, by URL. */
export interface SharedDatabaseTarget {
  name: string;
  /** True when it cannot run here (PostgreSQL without `TEST_DATABASE_URL`). */
  skip: boolean;
  /**
   * A database of the test's own, just migrated (for PostgreSQL, a schema maybe reused from an
   * earlier test and reset: `createPostgresTestDatabase()`), given up when the test ends.
   */
  databaseUrl(): Promise<string>;
}

/**
 * The databases a multi-instance test runs on: one SQLite file, and one PostgreSQL schema when
 * `TEST_DATABASE_URL` is set.
 *
 * @example
 * describe.each(sharedDatabaseTargets())('on $name', ({ skip, databaseUrl }) => {
 *   it.skipIf(skip)('is shared', async () => {
 *     const url = await databaseUrl();
 *   });
 * });
 */
export function sharedDatabaseTargets(): SharedDatabaseTarget[] {
  const postgresUrl = postgresTestUrl();
  return [
    {
      name: 'one SQLite file',
      skip: false,
      async databaseUrl() {
        const dir = await mkdtemp(join(tmpdir(), 'gateway-shared-'));
        onTestFinished(() => rm(dir, { recursive: true, force: true }));
        return join(dir, 'gateway.db');
      },
    },
    {
      name: 'one PostgreSQL schema',
      skip: postgresUrl === undefined,
      async databaseUrl() {
        const { url, database, drop } = await createPostgresTestDatabase(postgresUrl ?? '');
        await database.close();
        onTestFinished(drop);
        return url;
      },
    },
  ];
}
