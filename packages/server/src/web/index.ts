import type { Hono } from 'hono';
import type { AppEnv } from '../http/app-env.js';
import type { Authenticate } from '../identity/index.js';
import { mountAssets } from './assets/index.js';
import type { WebDeps, WebKit } from './kit.js';
import { mountExecutionsPage } from './pages/admin/executions.js';
import { mountInvitesPage } from './pages/admin/invites.js';
import { mountOverviewPage } from './pages/admin/overview.js';
import { mountProvidersPage } from './pages/admin/providers.js';
import { mountRolesPage } from './pages/admin/roles.js';
import { mountServiceAccountsPage } from './pages/admin/service-accounts.js';
import { mountSourcesPage } from './pages/admin/sources.js';
import { mountUsersPage } from './pages/admin/users.js';
import { mountApprovalsPage } from './pages/approvals.js';
import { mountEndpointsPage } from './pages/endpoints.js';
import { mountExplainPages } from './pages/explain.js';
import { mountSignInPages } from './pages/sign-in.js';
import { mountTeamPage } from './pages/team.js';
import { mountToolsPage } from './pages/tools.js';

/**
 * Mounts the web app at `/`: sign-in and sign-up, the Tools tab, team tools, MCP endpoints,
 * approvals and the admin pages, with their stylesheet and script under `/assets/`. Pages are
 * rendered on the server and read and write through the gateway's own JSON API, in process, as
 * the signed-in user. Host, Origin and body size are the front door's (`requestGuard`); who the
 * viewer is, `authenticate()`'s.
 *
 * @example
 * mountWebApp(app, services, authenticate);
 */
export function mountWebApp(
  app: Hono<AppEnv>,
  services: WebDeps,
  authenticate: Authenticate,
): void {
  const kit: WebKit = { app, services, authenticate };
  mountAssets(app);
  mountSignInPages(kit);
  mountToolsPage(kit);
  mountExplainPages(kit);
  mountTeamPage(kit);
  mountEndpointsPage(kit);
  mountApprovalsPage(kit);
  mountOverviewPage(kit);
  mountRolesPage(kit);
  mountUsersPage(kit);
  mountServiceAccountsPage(kit);
  mountInvitesPage(kit);
  mountSourcesPage(kit);
  mountProvidersPage(kit);
  mountExecutionsPage(kit);
}

export { notFoundPage } from './pages/not-found.js';
