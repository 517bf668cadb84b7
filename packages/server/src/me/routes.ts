import type { GatewayDatabase } from '../db/database.js';
import { HttpError } from '../http/errors.js';
import { type AnyRoute, defineRoute, noQuery } from '../http/route.js';
import { findServiceAccount } from '../identity/service-account-store.js';
import { findUserProfile } from '../identity/user-store.js';
import { type Me, meSchema } from './schemas.js';
import { findLinkedAccounts } from './store.js';

// The credential resolved, but what it names went away in between (a user or account deleted).
const gone = () =>
  new HttpError(
    'unauthorized',
    'The credential belongs to a user or account that no longer exists',
  );

/** What the `/api/me` route reads of the gateway's services. */
export type MeDeps = { database: GatewayDatabase; defaultRoleId: string };

/**
 * `GET /api/me` (any caller): who the request's credential belongs to, so a bearer token alone
 * (`GATEWAY_TOKEN` in CI) tells the CLI the `userId` the user-scoped routes take, and, for a
 * user, which OAuth accounts are linked (so `gateway connect` can check a link landed on the
 * token's user), and, for a CLI token, its id and when it expires. Never answers a secret or a
 * token.
 *
 * @example
 * routes.push(...meRoutes(services));
 */
export function meRoutes(services: MeDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/api/me',
      summary: 'Who the credential belongs to',
      tag: 'Users',
      access: 'user',
      query: noQuery,
      responses: {
        200: {
          description:
            'The caller, by kind: a user, a service account, or the service secret (`kind` tells which)',
          schema: meSchema,
        },
        401: { description: 'No credentials, or a credential that matches nothing' },
      },
      async handler(c, { principal: caller }) {
        const { db } = services.database;
        let me: Me;
        if (caller.kind === 'user') {
          const [profile, linkedAccounts] = await Promise.all([
            findUserProfile(db, caller.userId, services.defaultRoleId),
            findLinkedAccounts(db, caller.userId),
          ]);
          const token =
            caller.tokenId === undefined
              ? undefined
              : { id: caller.tokenId, expiresAt: caller.expiresAt ?? null };
          if (profile === undefined) throw gone();
          me = {
            kind: 'user',
            userId: caller.userId,
            email: profile.email,
            name: profile.name,
            roleId: profile.roleId,
            isAdmin: caller.isAdmin,
            via: caller.via === 'session' ? 'session' : 'cli_token',
            linkedAccounts,
            ...(token === undefined ? {} : { token }),
          };
        } else if (caller.kind === 'service_account') {
          const account = await findServiceAccount(db, caller.serviceAccountId);
          if (account === undefined) throw gone();
          me = {
            kind: 'service_account',
            serviceAccountId: caller.serviceAccountId,
            name: account.name,
            roleId: account.roleId,
          };
        } else {
          me = { kind: 'service' };
        }
        return c.json(me, 200);
      },
    }),
  ];
}
