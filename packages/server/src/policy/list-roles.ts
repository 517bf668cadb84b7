import { defineRoute, noQuery } from '../http/route.js';
import type { PolicyService } from './policy-service.js';
import { roleListSchema } from './schemas.js';

/** `GET /api/policy/roles`: every role. */
export function listRolesRoute(services: { policy: PolicyService }) {
  return defineRoute({
    method: 'get',
    path: '/api/policy/roles',
    summary: 'List roles',
    tag: 'Policy',
    access: 'user',
    query: noQuery,
    responses: {
      200: { description: 'Every role, sorted by id (possibly none)', schema: roleListSchema },
      401: { description: 'No credentials' },
    },
    async handler(c) {
      return c.json({ roles: await services.policy.listRoles() });
    },
  });
}
