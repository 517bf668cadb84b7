import type { LazyRoute } from '../http/lazy-routes.js';

/**
 * Every route of the web app (`mountWebApp`), in the order it mounts them: the gateway registers
 * these at start and loads the pages with the first request to one (`mountLazily`), so a start
 * that serves only the API and MCP never loads them. `web-routes.test.ts` checks this list against
 * what `mountWebApp` mounts.
 */
export const WEB_ROUTES: readonly LazyRoute[] = [
  ['GET', '/assets/app.css'],
  ['GET', '/assets/app.js'],
  ['GET', '/favicon.ico'],
  ['GET', '/'],
  ['GET', '/sign-in'],
  ['GET', '/sign-up'],
  ['POST', '/sign-in'],
  ['POST', '/sign-up'],
  ['POST', '/sign-in/social'],
  ['POST', '/sign-out'],
  ['GET', '/tools'],
  ['POST', '/tools/connections'],
  ['POST', '/tools/connections/:id/delete'],
  ['POST', '/tools/oauth/:provider/connect'],
  ['POST', '/tools/oauth/:provider/disconnect'],
  ['GET', '/tools/explain'],
  ['GET', '/admin/explain'],
  ['GET', '/team'],
  ['POST', '/team/connections'],
  ['POST', '/team/connections/:id/delete'],
  ['GET', '/endpoints'],
  ['POST', '/endpoints'],
  ['POST', '/endpoints/:id/update'],
  ['POST', '/endpoints/:id/delete'],
  ['GET', '/approvals'],
  ['POST', '/approvals/:id'],
  ['GET', '/admin'],
  ['GET', '/admin/roles'],
  ['POST', '/admin/roles'],
  ['POST', '/admin/roles/:id'],
  ['POST', '/admin/roles/:id/delete'],
  ['GET', '/admin/users'],
  ['POST', '/admin/users/:id/role'],
  ['GET', '/admin/service-accounts'],
  ['POST', '/admin/service-accounts'],
  ['POST', '/admin/service-accounts/:id/delete'],
  ['GET', '/admin/invites'],
  ['POST', '/admin/invites'],
  ['POST', '/admin/invites/:id/revoke'],
  ['GET', '/admin/sources'],
  ['POST', '/admin/sources/:id/settings'],
  ['POST', '/admin/sources/add'],
  ['GET', '/admin/executions'],
  ['GET', '/admin/executions/:id'],
];
