import { defineRoute } from '../http/route.js';
import type { PolicyService } from './policy-service.js';
import { roleBody, roleIdParams, roleUpdatedSchema } from './schemas.js';

/** `PUT /api/policy/roles/:id`: replaces a role's name and patterns; the path's id wins. */
export function updateRoleRoute(services: { policy: PolicyService }) {
  return defineRoute({
    method: 'put',
    path: '/api/policy/roles/:id',
    summary: 'Update a role',
    tag: 'Policy',
    access: 'service-or-admin',
    params: roleIdParams,
    body: roleBody,
    responses: {
      200: {
        description: "Updated; the returned role's id is the path's, whatever the body says",
        schema: roleUpdatedSchema,
      },
      400: { description: 'Not a valid role (`validation_failed`, one issue per problem)' },
      401: { description: 'No credentials' },
      403: { description: 'Neither an admin nor the service secret' },
      404: { description: 'No role with this id' },
    },
    async handler(c, { params, body }) {
      return c.json({ updated: await services.policy.updateRole(params.id, body) });
    },
  });
}
