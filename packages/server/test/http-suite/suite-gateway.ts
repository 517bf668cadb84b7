import { onTestFinished } from 'vitest';
import type { GatewayOptions } from '../../src/gateway-settings.js';
import type { AnyRoute } from '../../src/http/route.js';
import { createPostgresTestDatabase } from '../db/test-database.js';
import { forecastPlugin, notesPlugin, wikiPlugin } from '../registry/test-plugins.js';
import { createLeakCheckedGateway } from '../support/leak-checked-gateway.js';
import {
  createTestGateway,
  TEST_AUTH_SECRET,
  TEST_SERVICE_SECRET,
  type TestGateway,
} from '../support/test-gateway.js';

/** `GET /api/connections`: how the suites name a route, and how failures name it. */
export { routeKey } from '../../src/http/route.js';

/**
 * Every `/api` route of a gateway, read once when the suite is collected: the suites make one
 * test per route, so a route added anywhere shows up (and fails until it has a fixture).
 */
export async function gatewayRoutes(): Promise<readonly AnyRoute[]> {
  const gateway = await createLeakCheckedGateway({
    databaseUrl: ':memory:',
    configFile: false,
    env: {},
    authSecret: TEST_AUTH_SECRET,
    serviceApiSecret: TEST_SERVICE_SECRET,
  });
  try {
    return await gateway.routes();
  } finally {
    await gateway.stop();
  }
}

/** A database the suites run on: SQLite always, PostgreSQL when `TEST_DATABASE_URL` is set. */
export interface SuiteDatabase {
  name: 'SQLite' | 'PostgreSQL';
  /** Undefined when the database is not available (the suite is skipped with a notice). */
  open: ((options?: GatewayOptions) => Promise<TestGateway>) | undefined;
}

const plugins = () => [notesPlugin(), forecastPlugin(), wikiPlugin()];

/**
 * The databases to run `suite` on, each making a test gateway with the test plugins loaded.
 * Without `TEST_DATABASE_URL`, and in `pnpm test:fast` (`GATEWAY_TEST_FAST`: these suites go
 * route by route, a fresh PostgreSQL schema each, which is most of the fast tiers' time), the
 * PostgreSQL run is skipped, with a notice saying so; `pnpm test` and CI run it.
 */
export function suiteDatabases(suite: string): SuiteDatabase[] {
  const fast = process.env.GATEWAY_TEST_FAST === '1';
  const url = fast ? undefined : process.env.TEST_DATABASE_URL?.trim() || undefined;
  if (fast) {
    console.warn(`pnpm test:fast: the ${suite} runs on SQLite only; pnpm test runs PostgreSQL too`);
  } else if (url === undefined) {
    console.warn(`TEST_DATABASE_URL unset: the ${suite} runs on SQLite only, not PostgreSQL`);
  }
  return [
    { name: 'SQLite', open: (options) => createTestGateway({ plugins: plugins(), ...options }) },
    {
      name: 'PostgreSQL',
      open:
        url === undefined
          ? undefined
          : async (options) => {
              // As createPostgresTestGateway(), with the test plugins loaded.
              const { url: scoped, database, drop } = await createPostgresTestDatabase(url);
              await database.close();
              onTestFinished(drop);
              return createTestGateway({ databaseUrl: scoped, plugins: plugins(), ...options });
            },
    },
  ];
}
