import { afterAll, beforeAll, onTestFinished } from 'vitest';
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

/** Opens a test gateway; `stopLater` takes its stop (and its database's end), by default the test's end. */
type OpenSuiteGateway = (
  options?: GatewayOptions,
  stopLater?: (stop: () => Promise<void>) => void,
) => Promise<TestGateway>;

/** A database the suites run on: SQLite always, PostgreSQL when `TEST_DATABASE_URL` is set. */
export interface SuiteDatabase {
  name: 'SQLite' | 'PostgreSQL';
  /** Undefined when the database is not available (the suite is skipped with a notice). */
  open: OpenSuiteGateway | undefined;
}

/**
 * A gateway on `database` that the tests of the enclosing `describe` share: opened before its
 * first test and stopped, its database given up, after its last. Call it in the `describe`'s
 * body; each test makes its own users and data in the gateway. For the suites that go route by
 * route, where a gateway (and a PostgreSQL schema) per test was most of their time.
 *
 * @example
 * describe('every route', () => {
 *   const gateway = sharedGateway(database);
 *   it('GET /api/me', async () => {
 *     const user = await gateway().createUser();
 *   });
 * });
 */
export function sharedGateway(
  database: SuiteDatabase,
  options?: GatewayOptions,
): () => TestGateway {
  let gateway: TestGateway | undefined;
  const stops: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    gateway = await database.open?.(options, (stop) => stops.unshift(stop));
  });
  afterAll(async () => {
    for (const stop of stops.splice(0)) await stop();
  });
  return () => {
    if (gateway === undefined) throw new Error(`no shared gateway on ${database.name}`);
    return gateway;
  };
}

const plugins = () => [notesPlugin(), forecastPlugin(), wikiPlugin()];

/**
 * The databases to run `suite` on, each making a test gateway with the test plugins loaded.
 * Without `TEST_DATABASE_URL`, and in `pnpm test:fast` (`GATEWAY_TEST_FAST`: these suites go
 * route by route, each request slower on PostgreSQL), the PostgreSQL run is skipped, with a
 * notice saying so; `pnpm test` and CI run it.
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
    {
      name: 'SQLite',
      open: (options, stopLater) =>
        createTestGateway({ plugins: plugins(), ...options }, {}, stopLater),
    },
    {
      name: 'PostgreSQL',
      open:
        url === undefined
          ? undefined
          : async (options, stopLater = onTestFinished) => {
              // As createPostgresTestGateway(), with the test plugins loaded.
              const { url: scoped, database, drop } = await createPostgresTestDatabase(url);
              await database.close();
              stopLater(drop);
              return createTestGateway(
                { databaseUrl: scoped, plugins: plugins(), ...options },
                {},
                stopLater,
              );
            },
    },
  ];
}
