import type { AnyRoute } from '../../src/http/route.js';
import { expectedAccess } from './expected-access.js';
import type { Fixture, Variant } from './matrix-types.js';
import { routeKey } from './suite-gateway.js';

/**
 * The status DESIGN.md "HTTP contract" gives `variant` calling `route`: no credentials 401;
 * another user naming the owner's `userId` 403, or addressing the owner's resource by id 404;
 * admin-only routes 403 for plain users; decrypt 403 for everyone but the service secret;
 * service accounts only on routes that act for no user. A fixture's `expect` overrides it.
 * Who may call the route comes from the hand-written {@link expectedAccess}, never from
 * `route.access`, so the code cannot change its own expectations.
 */
export function expectedStatus(route: AnyRoute, fixture: Fixture, variant: Variant): number {
  const override = fixture.expect?.[variant];
  if (override !== undefined) return override;
  const ok = fixture.success;
  const access = expectedAccess[routeKey(route)];
  if (access === undefined) {
    throw new Error(`add ${routeKey(route)} to test/http-suite/expected-access.ts`);
  }
  if (access === 'public') return ok;
  if (variant === 'anonymous') return 401;
  switch (access) {
    case 'service':
      return variant === 'service' ? ok : 403;
    case 'service-or-admin':
      return variant === 'service' || variant === 'admin' ? ok : 403;
    case 'admin':
      // Admin-only routes that record which admin acted: the service secret is no admin user.
      return variant === 'admin' ? ok : 403;
    case 'user':
      return userRouteStatus(route, fixture, variant);
  }
}

function userRouteStatus(route: AnyRoute, fixture: Fixture, variant: Variant): number {
  const ok = fixture.success;
  if (variant === 'service account') return fixture.scope === 'global' ? ok : 403;
  if (variant === 'other user') {
    if (fixture.scope === 'user') return 403;
    if (fixture.scope === 'resource') return 404;
    return ok;
  }
  if (variant === 'other user, own id') {
    // In their own scope, another user's resource does not exist; a list is their own.
    return route.path.includes('/:') ? 404 : ok;
  }
  return ok;
}
