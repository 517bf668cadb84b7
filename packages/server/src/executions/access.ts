import { Refusal } from '../errors/refusal.js';
import type { AuthenticatedPrincipal } from '../identity/index.js';

/**
 * Whose records a principal may read: `undefined` for anyone's (admins and the service secret),
 * else their own user id. A service account acts for nobody and reads none.
 *
 * @throws Refusal 403 for a service account.
 */
export function readableUser(principal: AuthenticatedPrincipal): string | undefined {
  if (principal.kind === 'trusted') return undefined;
  if (principal.kind === 'service_account') {
    throw new Refusal(
      'forbidden',
      'Service accounts may only call tools; this route acts for a user',
    );
  }
  return principal.isAdmin ? undefined : principal.userId;
}

/**
 * The `userId` filter a principal may use: admins and the service secret anything (omitted:
 * everyone), a plain user only their own id, which they must name.
 *
 * @throws Refusal 403 when a plain user leaves it out (another user's id is refused earlier,
 * by the route's `actsFor`).
 */
export function userFilterFor(
  principal: AuthenticatedPrincipal,
  userId: string | undefined,
): string | undefined {
  const own = readableUser(principal);
  if (own !== undefined && userId === undefined) {
    throw new Refusal(
      'forbidden',
      `Only an admin may list everyone's calls; add userId=${own} for your own`,
    );
  }
  return userId;
}
