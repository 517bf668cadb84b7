import { onTestFinished } from 'vitest';
import type { GatewayOptions } from '../../src/gateway-settings.js';
import { createPostgresTestDatabase } from '../db/test-database.js';
import { createTestGateway, type TestGateway } from './test-gateway.js';

/**
 * A test gateway on PostgreSQL at `url`, in a just-migrated schema of its own (maybe reused from
 * an earlier test of the worker, reset: `createPostgresTestDatabase()`) that is given up when the
 * test finishes. The gateway opens its own pool on the schema-scoped URL.
 *
 * @example
 * const gw = await createPostgresTestGateway(process.env.TEST_DATABASE_URL!);
 */
export async function createPostgresTestGateway(
  url: string,
  options: Omit<GatewayOptions, 'databaseUrl'> = {},
): Promise<TestGateway> {
  const { url: scoped, database, drop } = await createPostgresTestDatabase(url);
  await database.close();
  onTestFinished(drop);
  return createTestGateway({ ...options, databaseUrl: scoped });
}
