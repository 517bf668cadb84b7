import { defineRoute } from '../http/route.js';
import type { PolicyService } from './policy-service.js';
import { roleDeletedSchema, roleIdParams } from './schemas.js';

/** `DELETE /api/policy/roles/:id`: deletes a role; its users fall back to the default role. */
export function deleteRoleRoute(services: { policy: PolicyService }) {
  return defineRoute({
    method: 'delete',
    path: '/api/policy/roles/:id',
    summary: 'Delete a role',
    tag: 'Policy',
    access: 'service-or-admin',
    params: roleIdParams,
    responses: {
      200: {
        description: 'Deleted; users who had it now have the default role',
        schema: roleDeletedSchema,
      },
      401: { description: 'No credentials' },
      403: { description: 'Neither an admin nor the service secret' },
      404: { description: 'No role with this id' },
      409: {
        description: 'The admin role, the default role, or a role a service account holds',
      },
    },
    async handler(c, { params }) {
      await services.policy.deleteRole(params.id);
      return c.json({ deleted: [params.id] });
    },
  });
}
