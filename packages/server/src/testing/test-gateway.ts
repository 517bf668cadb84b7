import { onTestFinished } from 'vitest';
import { createGateway, type Gateway, type GatewayOptions } from '../gateway.js';
import { generateToken, hashToken, maskToken } from '../secrets/index.js';
import {
  captureLogLine,
  rememberBearer,
  rememberSecret,
  rememberSecretFields,
  rememberSessionCookies,
} from './known-secrets.js';

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
 * A gateway for tests. Every secret it sends (`secret` and other secret-named body fields, bearer
 * credentials, the auth and service secrets) and every token it hands out (`token` and `key`
 * fields of answers, session cookies) is remembered, and every log line kept, for the leak check
 * of `leak-check.setup.ts` (see `known-secrets.ts`).
 */
export interface TestGateway extends Gateway {
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

/**
 * A gateway on a fresh in-memory SQLite database (or `databaseUrl`, e.g. a PostgreSQL test
 * schema), with logs captured and stopped when the test finishes.
 *
 * @example
 * const gw = await createTestGateway({ plugins: [notes] });
 * const alice = await gw.createUser();
 * const res = await gw.request('GET', `/api/connections?userId=${alice.id}`, { as: alice });
 */
export async function createTestGateway(options: GatewayOptions = {}): Promise<TestGateway> {
  const lines: string[] = [];
  rememberSecret(TEST_AUTH_SECRET);
  rememberSecret(TEST_SERVICE_SECRET);
  rememberSecret(options.authSecret);
  rememberSecret(options.serviceApiSecret);
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (/secret|api_key|token|password/i.test(name)) rememberSecret(value);
  }
  const gateway = await createGateway({
    databaseUrl: ':memory:',
    configFile: false,
    env: {},
    authSecret: TEST_AUTH_SECRET,
    serviceApiSecret: TEST_SERVICE_SECRET,
    baseUrl: 'http://127.0.0.1:8787',
    ...options,
    // Kept whatever sink the test adds, so the leak check sees every line.
    logSink: {
      write: (line) => {
        lines.push(line);
        captureLogLine(line);
        options.logSink?.write(line);
      },
    },
  });
  onTestFinished(() => gateway.stop());
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
      for (const [name, value] of Object.entries(headers)) {
        if (name.toLowerCase() === 'authorization') rememberBearer(value);
      }
      let body: string | undefined;
      if (requestOptions.body !== undefined) {
        body =
          typeof requestOptions.body === 'string'
            ? requestOptions.body
            : JSON.stringify(requestOptions.body);
        headers['content-type'] ??= 'application/json';
        rememberSecretFields(parseJson(body));
      }
      const response = await gateway.fetch(
        new Request(`http://127.0.0.1:8787${path}`, {
          method,
          headers,
          ...(body === undefined ? {} : { body }),
        }),
      );
      rememberSessionCookies(response.headers);
      if (response.ok && /json/i.test(response.headers.get('content-type') ?? '')) {
        rememberSecretFields(parseJson(await response.clone().text()));
      }
      return response;
    },
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
