import type { AnyRoute } from '../http/route.js';
import { assignRoleRoute } from './assign-role.js';
import { createRoleRoute } from './create-role.js';
import { deleteRoleRoute } from './delete-role.js';
import { listRolesRoute } from './list-roles.js';
import type { PolicyService } from './policy-service.js';
import { resolveToolsRoute } from './resolve-tools.js';
import { updateRoleRoute } from './update-role.js';

/** What the policy routes read of the gateway's services. */
export type PolicyDeps = { policy: PolicyService };

/**
 * The `/api/policy` routes: roles, role assignment and tool resolution.
 *
 * @example
 * const routes: AnyRoute[] = [...policyRoutes(services)];
 */
export function policyRoutes(services: PolicyDeps): AnyRoute[] {
  return [
    listRolesRoute(services),
    createRoleRoute(services),
    updateRoleRoute(services),
    deleteRoleRoute(services),
    assignRoleRoute(services),
    resolveToolsRoute(services),
  ];
}
