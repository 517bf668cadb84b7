/**
 * Every route of `gateway.routes()` × {no credentials, another user, the owner, an admin, the
 * service secret, a service account}, against a target owned by user A (issue 3, "Tests that
 * must exist"). A route added without a fixture fails here.
 */
import { afterAll, describe, expect, it } from 'vitest';
import {
  expectErrorShape,
  expectNoLeaks,
  expectNoSecrets,
  readAnswer,
} from '#test/http-suite/answers.js';
import { expectedAccess } from '#test/http-suite/expected-access.js';
import { expectedStatus } from '#test/http-suite/expected-status.js';
import { fixtures } from '#test/http-suite/matrix-fixtures.js';
import type { MatrixRequest, MatrixWorld, Variant } from '#test/http-suite/matrix-types.js';
import {
  createMatrixWorld,
  credentialsOf,
  MATRIX_VARIANTS,
  matrixWorldOn,
  sharedMatrixGateway,
  urlOf,
  withOtherUsersId,
} from '#test/http-suite/matrix-world.js';
import { gatewayRoutes, routeKey, suiteDatabases } from '#test/http-suite/suite-gateway.js';
import { capturedLogLines, knownSecrets } from '#test/support/known-secrets.js';
import type { AnyRoute } from '../http/route.js';

const routes = await gatewayRoutes();
const variants = MATRIX_VARIANTS;
/**
 * The text of every GET answer, each once, checked at the end against every secret known by
 * then.
 */
const listAnswers = new Set<string>();

afterAll(() => {
  expectNoLeaks(capturedLogLines(), 'the logs of the matrix gateways');
  expectNoLeaks(listAnswers, 'GET answers');
});

describe('the matrix fixtures', () => {
  it('each names a route that exists', () => {
    const keys = new Set(routes.map(routeKey));
    expect(Object.keys(fixtures).filter((key) => !keys.has(key))).toEqual([]);
  });

  it('expected-access.ts names every route, and no other, with the access it enforces', () => {
    const enforced = Object.fromEntries(routes.map((route) => [routeKey(route), route.access]));
    expect(enforced).toEqual(expectedAccess);
  });
});

for (const database of suiteDatabases('authorization matrix')) {
  const open = database.open;
  describe.skipIf(open === undefined)(`authorization matrix on ${database.name}`, () => {
    // One gateway for every route, each route with callers of its own: a gateway (and on
    // PostgreSQL a schema) per route was most of this suite's time.
    const gateway = sharedMatrixGateway(database);
    for (const route of routes) {
      it(routeKey(route), async () => {
        const fixture = fixtures[routeKey(route)];
        if (fixture === undefined) {
          throw new Error(`add a fixture for ${routeKey(route)} to test/http-suite/fixtures-*.ts`);
        }
        const world = await matrixWorldOn(gateway());
        const statuses: Partial<Record<Variant, number>> = {};
        const expected: Partial<Record<Variant, number>> = {};
        const problems: string[] = [];
        for (const variant of variants) {
          const prepared = await fixture.prepare(world);
          const request =
            variant === 'other user, own id' ? withOtherUsersId(world, prepared) : prepared;
          if (request === undefined) continue;
          expected[variant] = expectedStatus(route, fixture, variant);
          try {
            await send(world, route, request, variant, (status) => {
              statuses[variant] = status;
            });
          } catch (error) {
            problems.push(`${variant}: ${error instanceof Error ? error.message : String(error)}`);
          }
        }
        expect(statuses, `statuses of ${routeKey(route)}`).toEqual(expected);
        expect(problems).toEqual([]);
      });
    }
  });

  describe.skipIf(open === undefined)(
    `user B and user A's connections and MCP endpoints on ${database.name}`,
    () => {
      it('B can never list, delete or decrypt A’s connections or endpoints', async () => {
        const world = await createMatrixWorld(open!);
        const { gw, owner: a, other: b, admin } = world;
        const secret = world.secret();
        const connection = await world.call(
          'POST',
          '/api/connections',
          { userId: a.id, toolId: 'github', instanceName: 'Work', secret },
          a,
        );
        const endpoint = await world.call(
          'POST',
          '/api/connections/mcp-endpoints',
          { userId: a.id, name: 'laptop' },
          a,
        );
        const connectionId = (connection as { id: string }).id;
        const endpointId = (endpoint as { id: string }).id;
        const status = async (method: string, path: string) =>
          (await gw.request(method, path, { as: b })).status;

        // Listing: A's id is refused, B's own lists hold nothing of A's.
        expect(await status('GET', `/api/connections?userId=${a.id}`)).toBe(403);
        expect(await status('GET', `/api/connections/mcp-endpoints?userId=${a.id}`)).toBe(403);
        const own = await gw.request('GET', `/api/connections?userId=${b.id}`, { as: b });
        expect(await own.json()).toEqual({ connections: [] });
        const ownEndpoints = await gw.request(
          'GET',
          `/api/connections/mcp-endpoints?userId=${b.id}`,
          { as: b },
        );
        expect(await ownEndpoints.json()).toEqual({ endpoints: [] });

        // Deleting: 403 naming A, 404 (not "forbidden") through B's own scope.
        expect(await status('DELETE', `/api/connections/${connectionId}?userId=${a.id}`)).toBe(403);
        expect(await status('DELETE', `/api/connections/${connectionId}?userId=${b.id}`)).toBe(404);
        expect(
          await status('DELETE', `/api/connections/mcp-endpoints/${endpointId}?userId=${a.id}`),
        ).toBe(403);
        expect(
          await status('DELETE', `/api/connections/mcp-endpoints/${endpointId}?userId=${b.id}`),
        ).toBe(404);

        // Decrypting: only the service secret, never a user, admin included.
        expect(await status('POST', `/api/connections/${connectionId}/decrypt`)).toBe(403);
        const byAdmin = await gw.request('POST', `/api/connections/${connectionId}/decrypt`, {
          as: admin,
        });
        expect(byAdmin.status).toBe(403);
        expect(await byAdmin.text()).not.toContain(secret.slice(0, -4));

        // And A's things are all still there.
        const listed = await world.call('GET', `/api/connections?userId=${a.id}`, undefined, a);
        expect(JSON.stringify(listed)).toContain(connectionId);
        const endpoints = await world.call(
          'GET',
          `/api/connections/mcp-endpoints?userId=${a.id}`,
          undefined,
          a,
        );
        expect(JSON.stringify(endpoints)).toContain(endpointId);
      });
    },
  );
}

/** Sends one request of the matrix, reports its status, then checks its answer. */
async function send(
  world: MatrixWorld,
  route: AnyRoute,
  request: MatrixRequest,
  variant: Variant,
  report: (status: number) => void,
): Promise<void> {
  const method = route.method.toUpperCase();
  const url = urlOf(request);
  const secretsBefore = knownSecrets();
  const response = await world.gw.request(method, url, {
    as: credentialsOf(world, variant),
    body: request.body,
  });
  const answer = await readAnswer(`${method} ${url} as ${variant}`, response);
  report(answer.status);
  if (method === 'GET') listAnswers.add(answer.text);

  const decrypted = route.path.endsWith('/decrypt') && response.ok;
  if (!decrypted) expectNoSecrets(answer, secretsBefore);
  expect(Object.keys(route.responses), `${answer.status} is documented`).toContain(
    String(answer.status),
  );
  if (!response.ok) {
    expectErrorShape(answer);
    if (request.intact) expect(await request.intact(), 'the target is untouched').toBe(true);
    return;
  }
  const schema = route.responses[answer.status]?.schema;
  const isJson = answer.contentType.startsWith('application/json');
  const body: unknown = isJson ? JSON.parse(answer.text) : answer.text;
  if (schema) {
    const parsed = schema.safeParse(body);
    expect(parsed.error?.message, 'the answer matches its documented schema').toBeUndefined();
  }
  const otherUser = variant === 'other user' || variant === 'other user, own id';
  const hidden = fixtures[routeKey(route)]?.scope !== 'global';
  if (otherUser && hidden && request.targetId) {
    expect(answer.text, 'another user sees nothing of the target').not.toContain(request.targetId);
  }
  request.check?.(body, variant);
}
