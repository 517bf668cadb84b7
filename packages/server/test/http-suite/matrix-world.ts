import { z } from 'zod';
import type { GatewayOptions } from '../../src/gateway-settings.js';
import type { TestGateway, TestUser } from '../support/test-gateway.js';
import type { MatrixRequest, MatrixWorld, Variant } from './matrix-types.js';
import { type SuiteDatabase, sharedGateway } from './suite-gateway.js';

/** Every caller of the matrix, in the order the authorization matrix sends them. */
export const MATRIX_VARIANTS: readonly Variant[] = [
  'anonymous',
  'other user',
  'other user, own id',
  'service account',
  'owner',
  'admin',
  'service',
];

/** What a matrix gateway is opened with: upstream sources on 127.0.0.1 (the registry fixtures' fake upstream) may be registered. */
const MATRIX_GATEWAY_OPTIONS = { env: { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true' } };

/**
 * A fresh gateway with user A (the owner), user B (another plain user), an admin and a service
 * account with the default role.
 */
export async function createMatrixWorld(
  open: (options?: GatewayOptions) => Promise<TestGateway>,
): Promise<MatrixWorld> {
  return matrixWorldOn(await open(MATRIX_GATEWAY_OPTIONS));
}

/**
 * A matrix gateway on `database` that the tests of the enclosing `describe` share, each making
 * its world on it with {@link matrixWorldOn} (see `sharedGateway()`).
 */
export function sharedMatrixGateway(database: SuiteDatabase): () => TestGateway {
  return sharedGateway(database, MATRIX_GATEWAY_OPTIONS);
}

/**
 * New callers on `gw` (opened with {@link MATRIX_GATEWAY_OPTIONS}), which other worlds may share:
 * user A (the owner), user B (another plain user), an admin and a service account with the
 * default role.
 */
export async function matrixWorldOn(gw: TestGateway): Promise<MatrixWorld> {
  const owner = await gw.createUser({ name: 'Owner A' });
  const other = await gw.createUser({ name: 'Other B' });
  const admin = await gw.createUser({ name: 'Admin', admin: true });
  let counter = 0;
  const unique = (prefix: string) => `${prefix}-${++counter}-${crypto.randomUUID().slice(0, 8)}`;
  const call: MatrixWorld['call'] = async (method, path, body, as = 'service') => {
    const response = await gw.request(method, path, { as, body });
    const text = await response.text();
    if (!response.ok) throw new Error(`setup: ${method} ${path} -> ${response.status} ${text}`);
    return text === '' ? undefined : JSON.parse(text);
  };
  const created = await call(
    'POST',
    '/api/service-accounts',
    { name: 'matrix-bot', roleId: 'member' },
    admin,
  );
  const { key } = z.object({ key: z.string() }).parse(created);
  return {
    gw,
    owner,
    other,
    admin,
    serviceAccount: { token: key },
    unique,
    // Shaped so no redaction pattern hides it: a leak must show, not be masked by the logger.
    secret: () => `zebra-horse-${crypto.randomUUID()}`,
    call,
  };
}

/** Who to send a request as, for each caller of the matrix. */
export function credentialsOf(
  world: MatrixWorld,
  variant: Variant,
): TestUser | 'service' | 'anonymous' | { token: string } {
  switch (variant) {
    case 'anonymous':
      return 'anonymous';
    case 'other user':
    case 'other user, own id':
      return world.other;
    case 'owner':
      return world.owner;
    case 'admin':
      return world.admin;
    case 'service':
      return 'service';
    case 'service account':
      return world.serviceAccount;
  }
}

/**
 * The owner's request with the other user's id wherever it names the owner's (`?userId=` and a
 * body's `userId`); undefined when it names no user.
 */
export function withOtherUsersId(
  world: MatrixWorld,
  request: MatrixRequest,
): MatrixRequest | undefined {
  const { owner, other } = world;
  const inQuery = request.query?.userId === owner.id;
  const body = z.object({ userId: z.string() }).loose().safeParse(request.body);
  const inBody = body.success && body.data.userId === owner.id;
  if (!inQuery && !inBody) return undefined;
  return {
    ...request,
    ...(inQuery ? { query: { ...request.query, userId: other.id } } : {}),
    ...(inBody ? { body: { ...body.data, userId: other.id } } : {}),
  };
}

/** The path and query of a request. */
export function urlOf(request: MatrixRequest): string {
  const query = new URLSearchParams(request.query ?? {}).toString();
  return query === '' ? request.path : `${request.path}?${query}`;
}
