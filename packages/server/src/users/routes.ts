import type { GatewayDatabase } from '../db/database.js';
import { type AnyRoute, defineRoute, noQuery } from '../http/route.js';
import { listUsers } from '../identity/user-store.js';
import { userListSchema } from './schemas.js';

/** What the user routes read of the gateway's services. */
export type UsersDeps = { database: GatewayDatabase; defaultRoleId: string };

/**
 * `GET /api/users` (admin): every user with the role that applies to them, for the web app's
 * admin page and `gateway roles`.
 *
 * @example
 * routes.push(...userRoutes(services));
 */
export function userRoutes(services: UsersDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/api/users',
      summary: 'List users and their roles (admin)',
      tag: 'Users',
      access: 'service-or-admin',
      query: noQuery,
      responses: {
        200: { description: 'Every user, oldest first', schema: userListSchema },
        401: { description: 'No credentials' },
        403: { description: 'Not an admin' },
      },
      async handler(c) {
        const users = await listUsers(services.database.db, services.defaultRoleId);
        return c.json({ users }, 200);
      },
    }),
  ];
}
