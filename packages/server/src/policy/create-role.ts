import { defineRoute } from '../http/route.js';
import type { PolicyService } from './policy-service.js';
import { roleBody, roleCreatedSchema } from './schemas.js';

/** `POST /api/policy/roles`: creates a role. */
export function createRoleRoute(services: { policy: PolicyService }) {
  return defineRoute({
    method: 'post',
    path: '/api/policy/roles',
    summary: 'Create a role',
    tag: 'Policy',
    access: 'service-or-admin',
    body: roleBody,
    responses: {
      201: { description: 'Created', schema: roleCreatedSchema },
      400: { description: 'Not a valid role (`validation_failed`, one issue per problem)' },
      401: { description: 'No credentials' },
      403: { description: 'Neither an admin nor the service secret' },
      409: { description: 'A role with this id exists' },
    },
    async handler(c, { body }) {
      return c.json({ created: await services.policy.createRole(body) }, 201);
    },
  });
}
