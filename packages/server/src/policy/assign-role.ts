import { defineRoute } from '../http/route.js';
import type { PolicyService } from './policy-service.js';
import { assignRoleBody, roleAssignedSchema, userIdParams } from './schemas.js';

/** `PUT /api/policy/users/:userId/role`: assigns a role to a user. */
export function assignRoleRoute(services: { policy: PolicyService }) {
  return defineRoute({
    method: 'put',
    path: '/api/policy/users/:userId/role',
    summary: "Assign a user's role",
    tag: 'Policy',
    access: 'service-or-admin',
    params: userIdParams,
    body: assignRoleBody,
    responses: {
      200: { description: 'Assigned', schema: roleAssignedSchema },
      400: { description: 'Invalid body (`validation_failed`)' },
      401: { description: 'No credentials' },
      403: { description: 'Neither an admin nor the service secret' },
      404: { description: 'No such user or role' },
      409: { description: 'It would take the admin role from the last admin' },
    },
    async handler(c, { params, body }) {
      return c.json(await services.policy.assignRole(params.userId, body.roleId));
    },
  });
}
