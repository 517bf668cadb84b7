import { onTestFinished } from 'vitest';
import { SQLITE_MEMORY } from '../../src/db/sqlite.js';
import type { GatewayInternals, ServedGateway } from '../../src/gateway.js';
import type { GatewayOptions } from '../../src/gateway-settings.js';
import { generateToken, hashToken, maskToken } from '../../src/secrets/index.js';
import { createTestDatabase } from '../db/test-database.js';
import { rememberSecret } from './known-secrets.js';
import { createLeakCheckedGateway } from './leak-checked-gateway.js';

export const TEST_AUTH_SECRET = 'test-auth-secret-0123456789abcdef';
export const TEST_SERVICE_SECRET = 'test-service-secret-0123456789abcdef';

/** A user made for a test, with a CLI token to call the API as them. */
export interface TestUser {
  id: string;
  email: string;
  token: string;
  headers: Record<string, string>;
}

/** Who a test request is sent as. */
export type As = TestUser | 'service' | 'anonymous' | { token: string };

/**
 * A gateway for tests. Every secret it is sent or stores (`secret` and other secret-named body
 * fields, bearer credentials, the auth and service secrets) and every token it hands out (`token`
 * and `key` fields of answers, session cookies) is remembered, and every log line kept, for the
 * leak check of `leak-check.setup.ts` (see `createLeakCheckedGateway()`).
 */
export interface TestGateway extends ServedGateway {
  /** Every log line written so far, as text (to grep for leaked secrets). */
  logs(): string;
  /** Makes a user (an admin when `admin`), with a `gw_cli_` token. */
  createUser(options?: {
    email?: string;
    name?: string;
    admin?: boolean;
    roleId?: string;
  }): Promise<TestUser>;
  /** Sends a request; JSON bodies are serialised for you. */
  request(
    method: string,
    path: string,
    options?: { as?: As; body?: unknown; headers?: Record<string, string> },
  ): Promise<Response>;
}

let counter = 0;
let lastCreatedAt = 0;

/**
 * A creation time later than every one handed out before, so users made one after another sort
 * in that order even within one millisecond (as real sign-ups, seconds apart, do).
 */
function nextCreatedAt(): string {
  lastCreatedAt = Math.max(Date.now(), lastCreatedAt + 1);
  return new Date(lastCreatedAt).toISOString();
}

let migrated: Promise<Buffer> | undefined;

/**
 * A migrated in-memory SQLite database, serialized, made once per worker process: each test
 * gateway on `:memory:` starts as a copy of it instead of running every migration, which was
 * ~7 ms of a ~10-15 ms gateway start (issue 35). It finds them applied, as on any start after a
 * database's first (`schema_state` empty, so better-auth's step still runs as on a new one);
 * the migrations themselves are tested in `src/db/`.
 */
function migratedSqliteImage(): Promise<Buffer> {
  migrated ??= (async () => {
    const database = await createTestDatabase();
    let image: Buffer | undefined;
    database.runNow?.((connection) => {
      image = connection.serialize();
    });
    await database.close();
    if (image === undefined) throw new Error('the migrated SQLite database could not be read');
    return image;
  })();
  return migrated;
}

/**
 * A gateway on a fresh in-memory SQLite database (or `databaseUrl`, e.g. a PostgreSQL test
 * schema), with logs captured and stopped when the test finishes (or handed to `stopLater`, for
 * a gateway several tests share). `internals` are the gateway's test-only knobs (a stopped clock
 * for the failed-credential limit).
 *
 * @example
 * const gw = await createTestGateway({ plugins: [notes] });
 * const alice = await gw.createUser();
 * const res = await gw.request('GET', `/api/connections?userId=${alice.id}`, { as: alice });
 */
export async function createTestGateway(
  options: GatewayOptions = {},
  internals: Omit<GatewayInternals, 'passwordHasher'> = {},
  stopLater: (stop: () => Promise<void>) => void = onTestFinished,
): Promise<TestGateway> {
  const lines: string[] = [];
  const inMemory = (options.databaseUrl ?? SQLITE_MEMORY) === SQLITE_MEMORY;
  const sqliteImage = internals.sqliteImage ?? (inMemory ? await migratedSqliteImage() : undefined);
  rememberSecret(TEST_AUTH_SECRET);
  rememberSecret(TEST_SERVICE_SECRET);
  const gateway = await createLeakCheckedGateway(
    {
      databaseUrl: ':memory:',
      configFile: false,
      env: {},
      authSecret: TEST_AUTH_SECRET,
      serviceApiSecret: TEST_SERVICE_SECRET,
      baseUrl: 'http://127.0.0.1:8787',
      ...options,
      logSink: {
        write: (line) => {
          lines.push(line);
          options.logSink?.write(line);
        },
      },
    },
    sqliteImage === undefined ? internals : { ...internals, sqliteImage },
  );
  stopLater(() => gateway.stop());
  const { db } = gateway.services.database;

  const headersFor = (as: As | undefined): Record<string, string> => {
    if (as === undefined || as === 'anonymous') return {};
    if (as === 'service') return { authorization: `Bearer ${TEST_SERVICE_SECRET}` };
    return { authorization: `Bearer ${as.token}` };
  };

  return {
    ...gateway,
    logs: () => lines.join(''),
    async createUser(userOptions = {}) {
      counter += 1;
      const id = crypto.randomUUID();
      const email = userOptions.email ?? `user${counter}-${id.slice(0, 8)}@example.test`;
      const now = nextCreatedAt();
      await db
        .insertInto('user')
        .values({
          id,
          name: userOptions.name ?? `User ${counter}`,
          email,
          emailVerified: true,
          image: null,
          createdAt: now,
          updatedAt: now,
        })
        .execute();
      const roleId = userOptions.admin ? 'admin' : userOptions.roleId;
      if (roleId !== undefined) {
        await db
          .insertInto('user_roles')
          .values({ user_id: id, role_id: roleId, assigned_at: now })
          .execute();
      }
      const token = generateToken('cli');
      rememberSecret(token);
      await db
        .insertInto('api_tokens')
        .values({
          id: crypto.randomUUID(),
          kind: 'cli',
          user_id: id,
          service_account_id: null,
          name: 'test',
          token_hash: hashToken(token),
          masked_token: maskToken(token),
          created_at: now,
          last_used_at: null,
          expires_at: null,
          revoked_at: null,
        })
        .execute();
      return { id, email, token, headers: { authorization: `Bearer ${token}` } };
    },
    async request(method, path, requestOptions = {}) {
      const headers: Record<string, string> = {
        ...headersFor(requestOptions.as),
        ...requestOptions.headers,
      };
      let body: string | undefined;
      if (requestOptions.body !== undefined) {
        body =
          typeof requestOptions.body === 'string'
            ? requestOptions.body
            : JSON.stringify(requestOptions.body);
        headers['content-type'] ??= 'application/json';
      }
      // Through the gateway's watched fetch, which remembers what this request sends and gets.
      return gateway.fetch(
        new Request(`http://127.0.0.1:8787${path}`, {
          method,
          headers,
          ...(body === undefined ? {} : { body }),
        }),
      );
    },
  };
}
