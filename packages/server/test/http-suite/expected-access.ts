import type { Access } from '../../src/http/route.js';

/**
 * Who may call each route, written out by hand from docs/api.md ("Access" of each route) and
 * DESIGN.md "HTTP contract", keyed `METHOD /path` like the fixtures. The matrix derives its
 * expected statuses from this table, not from `route.access` (the field the code enforces), and
 * checks the two are equal: changing a route's access fails the suite until this table, and so
 * the documented contract, is changed too.
 */
export const expectedAccess: Readonly<Record<string, Access>> = {
  // Connections: a user's own (admins and the service secret may name anyone).
  'POST /api/connections': 'user',
  'GET /api/connections': 'user',
  'DELETE /api/connections/:id': 'user',
  // Token vending decrypts with the service secret alone; no user, admin included.
  'POST /api/connections/:id/decrypt': 'service',

  'POST /api/connections/mcp-endpoints': 'user',
  'GET /api/connections/mcp-endpoints': 'user',
  'POST /api/connections/mcp-endpoints/preview': 'user',
  'PATCH /api/connections/mcp-endpoints/:id': 'user',
  'DELETE /api/connections/mcp-endpoints/:id': 'user',

  // A team connection records the admin who made it; the service secret may list and remove.
  'POST /api/team/connections': 'admin',
  'GET /api/team/connections': 'user',
  'DELETE /api/team/connections/:id': 'service-or-admin',

  // The registry: the spec's service secret, and admins (docs/decisions.md).
  'POST /api/registry/sources': 'service-or-admin',
  'GET /api/registry/sources': 'service-or-admin',
  'PATCH /api/registry/sources/:id': 'service-or-admin',
  'DELETE /api/registry/sources/:id': 'service-or-admin',

  // Roles: anyone signed in reads them; writes and assignment are for admins or the service secret.
  'GET /api/policy/roles': 'user',
  'POST /api/policy/roles': 'service-or-admin',
  'PUT /api/policy/roles/:id': 'service-or-admin',
  'DELETE /api/policy/roles/:id': 'service-or-admin',
  'PUT /api/policy/users/:userId/role': 'service-or-admin',
  'GET /api/policy/resolve': 'user',
  'POST /api/policy/preview': 'service-or-admin',
  'GET /api/explain': 'user',

  'GET /api/me': 'user',
  'GET /api/users': 'service-or-admin',
  'GET /api/tools/status': 'user',
  'GET /api/connectors/availability': 'user',

  // The sign-in code is the credential of the exchange.
  'POST /api/cli/token': 'public',
  'GET /api/cli/tokens': 'user',
  'DELETE /api/cli/tokens/:id': 'user',

  // Creating one records the admin who did; the service secret may list and remove.
  'POST /api/service-accounts': 'admin',
  'GET /api/service-accounts': 'service-or-admin',
  'DELETE /api/service-accounts/:id': 'service-or-admin',
  'GET /api/providers': 'admin',
  'PUT /api/providers/:id': 'admin',
  'DELETE /api/providers/:id': 'admin',

  // Invites record the admin who let someone in; the service secret manages none.
  'POST /api/invites': 'admin',
  'GET /api/invites': 'admin',
  'DELETE /api/invites/:id': 'admin',

  'GET /api/executions': 'user',
  'GET /api/executions/:id': 'user',
  'GET /api/executions/export': 'admin',
  'GET /api/overview': 'service-or-admin',
  'GET /api/approvals': 'user',
  'POST /api/approvals/:id': 'user',

  'GET /api/openapi.json': 'public',
  'GET /api/docs': 'public',
};
