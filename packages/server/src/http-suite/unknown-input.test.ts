/**
 * Every route of `gateway.routes()` refuses input it does not declare (docs/api.md "Requests"):
 * an unknown query parameter (`?zz=1`) answers 400 `validation_failed`, a body sent to a route
 * that takes none 400 `bad_request`, an unknown body field 400 `validation_failed`; each in the
 * error shape, changing nothing. The same request without the extra input then succeeds, so the
 * 400 is the extra input's doing. Requests come from the matrix fixtures, sent by a caller the
 * route admits.
 */
import { describe, expect, it } from 'vitest';
import { expectErrorShape, readAnswer } from '#test/http-suite/answers.js';
import { expectedAccess } from '#test/http-suite/expected-access.js';
import { fixtures } from '#test/http-suite/matrix-fixtures.js';
import type { MatrixRequest, MatrixWorld, Variant } from '#test/http-suite/matrix-types.js';
import {
  credentialsOf,
  matrixWorldOn,
  sharedMatrixGateway,
  urlOf,
} from '#test/http-suite/matrix-world.js';
import { gatewayRoutes, routeKey, suiteDatabases } from '#test/http-suite/suite-gateway.js';
import type { Access, AnyRoute } from '../http/route.js';

const routes = await gatewayRoutes();

/** A caller each access level admits, and for whom the fixtures' requests succeed. */
const callerFor: Record<Access, Variant> = {
  public: 'anonymous',
  user: 'owner',
  admin: 'admin',
  service: 'service',
  'service-or-admin': 'admin',
};

/** One way of adding input the route does not declare. */
interface Extra {
  name: string;
  applies(route: AnyRoute): boolean;
  change(request: MatrixRequest): { url: string; body?: unknown };
  code: 'validation_failed' | 'bad_request';
}

const extras: Extra[] = [
  {
    name: 'an unknown query parameter',
    applies: () => true,
    change: (request) => ({
      url: urlOf({ ...request, query: { ...request.query, zz: '1' } }),
      body: request.body,
    }),
    code: 'validation_failed',
  },
  {
    // A GET cannot carry a body (fetch refuses one; Node's HTTP server drops it).
    name: 'a body, to a route that takes none',
    applies: (route) => route.body === undefined && route.method !== 'get',
    change: (request) => ({ url: urlOf(request), body: { zz: 1 } }),
    code: 'bad_request',
  },
  {
    name: 'an unknown body field',
    applies: (route) => route.body !== undefined,
    change: (request) => ({
      url: urlOf(request),
      body: { ...(request.body as Record<string, unknown>), zz: 1 },
    }),
    code: 'validation_failed',
  },
];

async function send(
  world: MatrixWorld,
  route: AnyRoute,
  variant: Variant,
  url: string,
  body: unknown,
) {
  const method = route.method.toUpperCase();
  const response = await world.gw.request(method, url, {
    as: credentialsOf(world, variant),
    ...(body === undefined ? {} : { body }),
  });
  return readAnswer(`${method} ${url} as ${variant}`, response);
}

for (const database of suiteDatabases('unknown input suite')) {
  const open = database.open;
  describe.skipIf(open === undefined)(`input no route declares, on ${database.name}`, () => {
    // One gateway for every route, each route with callers of its own (as the matrix).
    const gateway = sharedMatrixGateway(database);
    for (const route of routes) {
      it(routeKey(route), async () => {
        const fixture = fixtures[routeKey(route)];
        const access = expectedAccess[routeKey(route)];
        if (fixture === undefined || access === undefined) {
          throw new Error(`add ${routeKey(route)} to the http-suite fixtures`);
        }
        const variant = callerFor[access];
        const world = await matrixWorldOn(gateway());
        const applied = extras.filter((extra) => extra.applies(route));
        for (const extra of applied) {
          const request = await fixture.prepare(world);
          const { url, body } = extra.change(request);
          const answer = await send(world, route, variant, url, body);
          expect(answer.status, `${extra.name}: ${answer.request} -> ${answer.text}`).toBe(400);
          expectErrorShape(answer);
          const { error } = JSON.parse(answer.text) as { error: { code: string; details?: [] } };
          expect(error.code, `${extra.name}: ${answer.request}`).toBe(extra.code);
          if (extra.code === 'validation_failed') {
            expect(error.details, answer.request).toEqual(
              expect.arrayContaining([
                expect.objectContaining({ message: expect.stringMatching(/zz/) }),
              ]),
            );
          }
          if (request.intact) expect(await request.intact(), 'the target is untouched').toBe(true);
        }
        // The same request without the extra input is accepted.
        const request = await fixture.prepare(world);
        const answer = await send(world, route, variant, urlOf(request), request.body);
        expect(answer.status, `${answer.request} -> ${answer.text.slice(0, 300)}`).toBe(
          fixture.success,
        );
        // Issue 18: `{}`, which many HTTP client wrappers send on every POST, is no body.
        if (route.body === undefined && route.method !== 'get') {
          const again = await fixture.prepare(world);
          const empty = await send(world, route, variant, urlOf(again), {});
          expect(empty.status, `{} as the body: ${empty.request} -> ${empty.text}`).toBe(
            fixture.success,
          );
        }
      });
    }
  });
}
